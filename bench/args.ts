// The command line of `npm run bench -- [--compare old.json] [--only fleet,fresh]`, checked before anything starts.

/** Scenarios `--only` may name; the echo always runs, as every ratio divides by it. */
export const SELECTABLE = ['fleet', 'fresh', 'bearer', 'paid', 'offline', 'mcp'] as const;
export type Selectable = (typeof SELECTABLE)[number];
/** The rows that run on the embedded devnet (BENCH_DEVNET=0 leaves them out). */
export const DEVNET_SCENARIOS: readonly Selectable[] = ['fleet', 'fresh', 'bearer', 'paid'];

export interface BenchArgs {
  compare: string | null;
  /** The scenarios to run besides the echo. */
  only: Set<Selectable>;
}

export const USAGE = `usage: npm run bench -- [--compare old.json] [--only ${SELECTABLE.join(',')}]`;

/** Parses argv (without node and the script); throws an Error whose message says what is wrong. */
export function parseBenchArgs(argv: string[]): BenchArgs {
  const args: BenchArgs = { compare: null, only: new Set(SELECTABLE) };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].startsWith('--') && argv[i].includes('=') ? argv[i].split(/=(.*)/s, 2) : [argv[i], undefined];
    const value = inline ?? argv[i + 1];
    if (flag !== '--compare' && flag !== '--only') throw new Error(`unknown argument ${argv[i]}\n${USAGE}`);
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('--'))) throw new Error(`${flag} needs a value\n${USAGE}`);
    if (inline === undefined) i++;
    if (flag === '--compare') args.compare = value;
    else args.only = onlyScenarios(value);
  }
  return args;
}

function onlyScenarios(list: string): Set<Selectable> {
  const names = list.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(SELECTABLE as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new Error(`--only takes scenarios among ${SELECTABLE.join(', ')} (the echo always runs); not ${unknown.join(', ') || 'an empty list'}`);
  }
  return new Set(names as Selectable[]);
}
