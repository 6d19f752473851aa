// The command line of `npm run bench -- [--compare old.json] [--only fleet,fresh] [--baseline <ref> [--runs N]]`, checked before anything starts.

/** Scenarios `--only` may name; the echo always runs, as every ratio divides by it. */
export const SELECTABLE = ['fleet', 'fresh', 'bearer', 'paid', 'offline', 'edge', 'mcp', 'long', 'cluster'] as const;
export type Selectable = (typeof SELECTABLE)[number];
/** The rows that run on the embedded devnet (BENCH_DEVNET=0 leaves them out). */
export const DEVNET_SCENARIOS: readonly Selectable[] = ['fleet', 'fresh', 'bearer', 'paid'];
/** Rounds of a --baseline comparison when --runs does not say. */
export const DEFAULT_RUNS = 3;

export interface BenchArgs {
  compare: string | null;
  /** The scenarios to run besides the echo. */
  only: Set<Selectable>;
  /** A git ref to build and run alternately with this checkout, or null for one run of this checkout. */
  baseline: string | null;
  /** Rounds of the baseline comparison, each one run of either build. */
  runs: number;
}

export const USAGE = `usage: npm run bench -- [--compare old.json] [--only ${SELECTABLE.join(',')}] [--baseline <git ref> [--runs N]]`;
const FLAGS = ['--compare', '--only', '--baseline', '--runs'];

/** Parses argv (without node and the script); throws an Error whose message says what is wrong. */
export function parseBenchArgs(argv: string[]): BenchArgs {
  const args: BenchArgs = { compare: null, only: new Set(SELECTABLE), baseline: null, runs: DEFAULT_RUNS };
  let runsGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].startsWith('--') && argv[i].includes('=') ? argv[i].split(/=(.*)/s, 2) : [argv[i], undefined];
    const value = inline ?? argv[i + 1];
    if (!FLAGS.includes(flag)) throw new Error(`unknown argument ${argv[i]}\n${USAGE}`);
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('--'))) throw new Error(`${flag} needs a value\n${USAGE}`);
    if (inline === undefined) i++;
    if (flag === '--compare') args.compare = value;
    else if (flag === '--only') args.only = onlyScenarios(value);
    else if (flag === '--baseline') args.baseline = value;
    else [args.runs, runsGiven] = [positiveWhole(value), true];
  }
  if (runsGiven && args.baseline === null) throw new Error(`--runs counts the rounds of a --baseline comparison; give --baseline too\n${USAGE}`);
  // --compare sets one run beside an earlier file; a baseline comparison already has its own side.
  if (args.compare !== null && args.baseline !== null) throw new Error(`--compare and --baseline do not go together: --baseline runs both sides itself\n${USAGE}`);
  return args;
}

function positiveWhole(text: string): number {
  const runs = Number(text);
  if (!/^\d+$/.test(text) || runs < 1) throw new Error(`--runs takes a whole number of at least 1, not ${text}`);
  return runs;
}

function onlyScenarios(list: string): Set<Selectable> {
  const names = list.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(SELECTABLE as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new Error(`--only takes scenarios among ${SELECTABLE.join(', ')} (the echo always runs); not ${unknown.join(', ') || 'an empty list'}`);
  }
  return new Set(names as Selectable[]);
}
