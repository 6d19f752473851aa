// The bulk verification job behind `npm run audit:verify -- <source>`: whole chain, progress, report, exit status.
import { readFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import type { ChainProblem, ProblemKind, VerifyReport } from '../../audit/verify/chain-walk.js';
import { AUDIT_BACKENDS } from '../../audit/backends.js';
import { openChainSources, type ChainSource } from '../../audit/verify/bulk-sources.js';
import type { Checkpoint } from '../../audit/proof/checkpoint.js';
import { ProofRefused, extendCheckpoint, getJson, proveRecord } from '../../audit/proof/remote-check.js';
import { extendPartitionedCheckpoint, isPartitionedCheckpoint, type ExtendedChain } from '../../audit/proof/remote-partition-extend.js';
import { PATHS } from '../../catalogue/published-facts.js';
import { provePartitionedRecord } from '../../audit/proof/remote-partition-check.js';
import { ProgressBar, type ProgressStream } from './progress-bar.js';
import { verifyChunks } from '../../audit/verify/verify-chunks.js';
import { checkKeptFacts } from '../../audit/verify/facts-check.js';
import { VerifyPool, type Hasher } from '../../audit/verify/verify-pool.js';

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: ProgressStream;
}

export const EXIT_HEALTHY = 0;
export const EXIT_TAMPERED = 1;
export const EXIT_ERROR = 2;

const USAGE = `usage: npm run audit:verify -- <source> [--head SEQ[:HASH]] [--threads N] [--hasher NAME] [--json]
       npm run audit:verify -- <URL> --prove SEQ [--chain P] [--json]
       npm run audit:verify -- <URL> --since <checkpoint file | genesis> [--save FILE] [--json]

<source> is one of
  a data directory (DATA_DIR, holding audit/audit.log) or the log file itself
  a JSON-lines file of records as the listing API returns them (stored JSON plus "hash"), oldest first
  a running service's base URL, e.g. http://127.0.0.1:8080 (pages through GET /api/v1/audit/export;
  a partitioned log's chains each in turn)

--head SEQ[:HASH]  the chain must reach this record, with this hash (an audit_seq and audit_hash
                   from a verdict): a cut tail leaves no other trace. A service's head is the default.
--threads N        verification threads (default: the number of cores)
--hasher NAME      hash-wasm (default) or node:crypto, whose OpenSSL uses the CPU's SHA extensions
--json             print the report as JSON
--prove SEQ        prove record SEQ is in the service's latest signed checkpoint: its bytes, its leaf,
                   its Merkle path and the checkpoint's Ed25519 signature, checked here
--chain P          with --prove, on a service whose log is partitioned (AUDIT_PARTITIONS): the record's
                   chain (a verdict's audit_chain); the chain's path to the signed root is checked too
--since FILE       verify only the records after the signed checkpoint in FILE (one you trust, e.g.
                   saved by an earlier run), the latest checkpoint's consistency with it, and that
                   those records build the latest root; \`genesis\` starts from the first record. On a
                   partitioned log, every chain is extended by its own records and consistency proof
--save FILE        after --since succeeds, write the latest checkpoint to FILE for the next run

Exit status: 0 healthy, 1 tampered, 2 the chain could not be read.`;

const REASONS: Record<ProblemKind, string> = {
  unparseable: 'unparseable: not a `<hash> <canonical JSON>` record line',
  hash_mismatch: 'hash mismatch: its bytes do not hash to its stored hash',
  broken_link: 'broken link: its prev_hash names neither the stored nor the real hash of the record before it',
  seq_gap: 'gap in seq: records before it are missing',
  reorder: 'reorder: it is stored out of seq order',
  truncated: 'truncated: the chain ends before the record it must reach (the head)',
  head_mismatch: 'head mismatch: the record it must reach (the head) has another hash',
  facts_missing: 'facts missing: no facts are kept under the facts_hash it names',
  facts_mismatch: 'facts mismatch: the facts kept for it do not hash to its facts_hash',
  outcome_missing: 'outcome missing: no outcome document is kept under the outcome_hash it names',
  outcome_mismatch: 'outcome mismatch: the outcome document kept for it does not hash to its outcome_hash',
};

interface Options {
  location: string;
  prove?: number;
  /** The record's chain on a partitioned log. */
  chain?: number;
  since?: string;
  save?: string;
  head?: { seq: number; hash?: string };
  threads: number;
  hasher: Hasher;
  json: boolean;
}

const HASHERS: Hasher[] = ['hash-wasm', 'node:crypto'];

/** What to print instead of running: the usage for --help, or what is wrong with the arguments. */
interface Refusal {
  text: string;
  status: number;
}

const wrong = (problem: string): Refusal => ({ text: `${problem}\n\n${USAGE}`, status: EXIT_ERROR });

function parseOptions(argv: string[]): Options | Refusal {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      head: { type: 'string' }, threads: { type: 'string' }, hasher: { type: 'string' }, json: { type: 'boolean' },
      prove: { type: 'string' }, chain: { type: 'string' }, since: { type: 'string' }, save: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { text: USAGE, status: EXIT_HEALTHY };
  if (positionals.length !== 1) return { text: USAGE, status: EXIT_ERROR };
  const threads = values.threads === undefined ? availableParallelism() : Number(values.threads);
  if (!Number.isInteger(threads) || threads < 1 || threads > 64) return wrong('--threads must be 1 to 64');
  const hasher = (values.hasher ?? 'hash-wasm') as Hasher;
  if (!HASHERS.includes(hasher)) return wrong(`--hasher must be ${HASHERS.join(' or ')}`);
  const head = values.head?.match(/^(\d{1,15})(?::([0-9a-f]{64}))?$/);
  if (values.head !== undefined && !head) return wrong('--head must be SEQ or SEQ:HASH (64 lower-case hex)');
  const prove = values.prove === undefined ? undefined : Number(values.prove);
  if (prove !== undefined && !(Number.isSafeInteger(prove) && prove >= 1)) return wrong('--prove must be a record seq (1 or more)');
  if ((prove !== undefined || values.since !== undefined) && !/^https?:\/\//.test(positionals[0])) return wrong('--prove and --since need a service URL');
  if (prove !== undefined && values.since !== undefined) return wrong('--prove and --since are separate checks; give one');
  if (values.save !== undefined && values.since === undefined) return wrong('--save goes with --since');
  const chain = values.chain === undefined ? undefined : Number(values.chain);
  if (chain !== undefined && !(Number.isInteger(chain) && chain >= 0 && prove !== undefined)) return wrong('--chain goes with --prove and is a chain number (0 or more)');
  return {
    location: positionals[0], threads, hasher, json: values.json ?? false, head: head ? { seq: Number(head[1]), hash: head[2] } : undefined,
    prove, chain, since: values.since, save: values.save,
  };
}

/** Runs the job; resolves to the exit status. */
export async function runAuditVerify(argv: string[], io: CliIo): Promise<number> {
  let options: Options | Refusal;
  try {
    options = parseOptions(argv);
  } catch (error) {
    options = wrong((error as Error).message);
  }
  if ('text' in options) {
    (options.status === EXIT_HEALTHY ? io.stdout : io.stderr).write(`${options.text}\n`);
    return options.status;
  }
  if (options.prove !== undefined || options.since !== undefined) return runProofCheck(options, io);
  const pool = new VerifyPool(options.threads, options.hasher);
  const began = performance.now();
  try {
    const sources = await openChainSources(options.location, AUDIT_BACKENDS);
    if (sources.length > 1) return await verifyChains(pool, sources, options, io, began);
    const [source] = sources;
    const report = await verifySource(pool, source, options, io);
    const seconds = (performance.now() - began) / 1000;
    io.stdout.write(options.json ? `${JSON.stringify({ source: source.name, ...report, seconds })}\n` : describe(source, report, seconds));
    return report.healthy ? EXIT_HEALTHY : EXIT_TAMPERED;
  } catch (error) {
    io.stderr.write(`audit:verify: ${(error as Error).message}\n`);
    return EXIT_ERROR;
  } finally {
    await pool.close();
  }
}

async function verifySource(pool: VerifyPool, source: ChainSource, options: Options, io: CliIo): Promise<VerifyReport> {
  const bar = new ProgressBar({ stream: io.stderr, total: source.total, label: 'verifying' });
  let done = { records: 0, bytes: 0 };
  const progress = (walked: { records: number; bytes: number }) => {
    done = walked;
    bar.update(source.unit === 'bytes' ? walked.bytes : walked.records, walked.records);
  };
  const head = options.head ?? source.head;
  // The facts beside the chain are read alongside the walk, where the source can read them (a data directory).
  const [report, facts] = await Promise.all([
    verifyChunks(pool, source.chunks, { field: 'prev_hash', head, onProgress: progress, recycle: source.recycle }),
    source.facts ? checkKeptFacts(source.facts.location, source.facts.items()) : null,
  ]);
  bar.finish(source.unit === 'bytes' ? source.total : done.records, done.records);
  return facts ? facts.merge(report) : report;
}

/**
 * A partitioned log (ARCHITECTURE.md "Partitioned audit chains"): each chain walked in turn to its own head and
 * reported by its number; healthy only when every chain is. `--head` names one chain's record, so it is refused here.
 */
async function verifyChains(pool: VerifyPool, sources: ChainSource[], options: Options, io: CliIo, began: number): Promise<number> {
  if (options.head) throw new Error(`${options.location} keeps ${sources.length} chains: --head names a record of one chain; verify without it`);
  const reports: Array<{ source: ChainSource; report: VerifyReport }> = [];
  for (const source of sources) reports.push({ source, report: await verifySource(pool, source, options, io) });
  const seconds = (performance.now() - began) / 1000;
  const healthy = reports.every(({ report }) => report.healthy);
  if (options.json) {
    const chains = reports.map(({ source, report }) => ({ chain: source.chain, ...report }));
    io.stdout.write(`${JSON.stringify({ source: options.location, partitions: sources.length, healthy, chains, seconds })}\n`);
  } else {
    io.stdout.write(reports.map(({ source, report }) => describe(source, report, seconds)).join(''));
    io.stdout.write(`audit chains ${options.location}: ${sources.length} chains, ${healthy ? 'all healthy' : `NOT healthy: chain ${reports.filter(({ report }) => !report.healthy).map(({ source }) => source.chain).join(', ')}`}\n`);
  }
  return healthy ? EXIT_HEALTHY : EXIT_TAMPERED;
}

function describe(source: ChainSource, report: VerifyReport, seconds: number): string {
  const rate = Math.round(report.total / Math.max(seconds, 1e-3)).toLocaleString('en-US');
  const first = report.problems[0];
  const lines = [
    `audit chain ${source.name}`,
    `  records checked   ${report.total.toLocaleString('en-US')}`,
    `  tampered          ${report.tampered.toLocaleString('en-US')}`,
    `  healthy           ${report.healthy ? 'yes' : 'NO'}`,
    `  first broken seq  ${first ? `${first.seq} (${REASONS[first.problem]}${first.location ? `, in ${first.location}` : ''})` : 'none'}`,
    `  time              ${seconds.toFixed(2)} s (${rate} records/s)`,
  ];
  if (report.problems.length > 0) {
    lines.push(`  problems (first ${report.problems.length}):`, ...report.problems.map(problemLine));
  }
  return `${lines.join('\n')}\n`;
}

function problemLine(problem: ChainProblem): string {
  return `    seq ${problem.seq}  ${problem.problem}  ${problem.hash ?? '-'}${problem.location ? `  in ${problem.location}` : ''}`;
}

/** `--prove` and `--since`: Merkle proofs against signed checkpoints, checked here (src/audit/proof/remote-check.ts). */
async function runProofCheck(options: Options, io: CliIo): Promise<number> {
  const began = performance.now();
  try {
    const report = options.prove !== undefined ? await proveOne(options.location, options.prove, options.chain) : await extendTrusted(options, io);
    const seconds = (performance.now() - began) / 1000;
    io.stdout.write(options.json ? `${JSON.stringify({ source: options.location, ok: true, ...report.json, seconds })}\n` : `${report.text}  time              ${seconds.toFixed(3)} s\n`);
    return EXIT_HEALTHY;
  } catch (error) {
    if (!(error instanceof ProofRefused)) {
      io.stderr.write(`audit:verify: ${(error as Error).message}\n`);
      return EXIT_ERROR;
    }
    io.stdout.write(options.json ? `${JSON.stringify({ source: options.location, ok: false, reason: error.message })}\n` : `audit proof ${options.location}\n  REFUSED           ${error.message}\n`);
    return EXIT_TAMPERED;
  }
}

interface ProofReport {
  text: string;
  json: Record<string, unknown>;
}

async function proveOne(base: string, seq: number, chain: number | undefined): Promise<ProofReport> {
  if (chain !== undefined) return proveInChain(base, seq, chain);
  const proven = await proveRecord(base, seq);
  const { checkpoint } = proven;
  return {
    json: { seq, hash: proven.hash, checkpoint },
    text: [
      `audit proof ${base}`,
      `  record            ${seq} (${proven.hash})`,
      `  included in       checkpoint ${checkpoint.tree_size}, root ${checkpoint.root_hash}`,
      `  signed            ${new Date(checkpoint.timestamp).toISOString()} by key ${checkpoint.key_id}`,
      '',
    ].join('\n'),
  };
}

/** A record of a partitioned log: its chain's path, and that chain's place under the one signed root. */
async function proveInChain(base: string, seq: number, chain: number): Promise<ProofReport> {
  const { hash, checkpoint } = await provePartitionedRecord(base, seq, chain);
  const head = checkpoint.chains[chain];
  return {
    json: { chain, seq, hash, checkpoint },
    text: [
      `audit proof ${base}`,
      `  record            ${seq} of chain ${chain} (${hash})`,
      `  included in       chain ${chain}'s tree of ${head.tree_size}, root ${head.root_hash}`,
      `  under             checkpoint ${checkpoint.tree_size} of ${checkpoint.partitions} chains, root ${checkpoint.root_hash}`,
      `  signed            ${new Date(checkpoint.timestamp).toISOString()} by key ${checkpoint.key_id}`,
      '',
    ].join('\n'),
  };
}

/** What --since reports of either log: the single chain's checkpoints, or a partitioned log's with its chains. */
type Extended = { from: { tree_size: number; root_hash: string }; to: { tree_size: number; root_hash: string }; records: number; chains?: ExtendedChain[] };

async function extendTrusted(options: Options, io: CliIo): Promise<ProofReport> {
  const since = options.since!;
  const trusted = since === 'genesis' ? null : JSON.parse(await readFile(since, 'utf8')) as Checkpoint;
  // The bar starts once the latest checkpoint says how many records follow the trusted one.
  let bar: ProgressBar | null = null;
  const onProgress = (checked: number, total: number) => {
    bar ??= new ProgressBar({ stream: io.stderr, total, label: 'verifying' });
    if (checked === total) bar.finish(checked, checked);
    else bar.update(checked, checked);
  };
  // A partitioned log's checkpoints list their chains: the trusted one says so, or from genesis the latest does.
  const partitioned = isPartitionedCheckpoint(trusted ?? await getJson(options.location, PATHS.auditCheckpoint));
  const extended: Extended = partitioned
    ? await extendPartitionedCheckpoint(options.location, trusted, { onProgress })
    : await extendCheckpoint(options.location, trusted, { onProgress });
  if (options.save) await writeFile(options.save, `${JSON.stringify(extended.to, null, 2)}\n`);
  const { from, to, records, chains } = extended;
  return {
    json: { from: trusted ? from : null, to, records, ...(chains ? { chains } : {}) },
    text: [
      `audit chain ${options.location}`,
      `  trusted           ${trusted ? `checkpoint ${from.tree_size} (${from.root_hash})` : 'nothing: from the first record'}`,
      `  records checked   ${records.toLocaleString('en-US')} (bytes, links, tree)`,
      ...(chains ? [`  chains            ${chains.map((c) => `${c.chain}: ${c.from}..${c.to}`).join(', ')}`] : []),
      `  now trusted       checkpoint ${to.tree_size} (${to.root_hash})${options.save ? `, saved to ${options.save}` : ''}`,
      '',
    ].join('\n'),
  };
}
