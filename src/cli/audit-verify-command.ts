// The bulk verification job behind `npm run audit:verify -- <source>`: whole chain, progress, report, exit status.
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import type { ChainProblem, ProblemKind, VerifyReport } from '../audit-verify/chain-walk.js';
import { openChainSource, type ChainSource } from '../audit-verify/bulk-sources.js';
import { ProgressBar, type ProgressStream } from './progress-bar.js';
import { verifyChunks } from '../audit-verify/verify-chunks.js';
import { VerifyPool, type Hasher } from '../audit-verify/verify-pool.js';

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: ProgressStream;
}

export const EXIT_HEALTHY = 0;
export const EXIT_TAMPERED = 1;
export const EXIT_ERROR = 2;

const USAGE = `usage: npm run audit:verify -- <source> [--head SEQ[:HASH]] [--threads N] [--hasher NAME] [--json]

<source> is one of
  a data directory (DATA_DIR, holding audit/audit.log) or the log file itself
  a JSON-lines file of records as the listing API returns them (stored JSON plus "hash"), oldest first
  a running service's base URL, e.g. http://127.0.0.1:8080 (pages through GET /api/v1/audit/export)

--head SEQ[:HASH]  the chain must reach this record, with this hash (an audit_seq and audit_hash
                   from a verdict): a cut tail leaves no other trace. A service's head is the default.
--threads N        verification threads (default: the number of cores)
--hasher NAME      hash-wasm (default) or node:crypto, whose OpenSSL uses the CPU's SHA extensions
--json             print the report as JSON

Exit status: 0 healthy, 1 tampered, 2 the chain could not be read.`;

const REASONS: Record<ProblemKind, string> = {
  unparseable: 'unparseable: not a `<hash> <canonical JSON>` record line',
  hash_mismatch: 'hash mismatch: its bytes do not hash to its stored hash',
  broken_link: 'broken link: its prev_hash names neither the stored nor the real hash of the record before it',
  seq_gap: 'gap in seq: records before it are missing',
  reorder: 'reorder: it is stored out of seq order',
  truncated: 'truncated: the chain ends before the record it must reach (the head)',
  head_mismatch: 'head mismatch: the record it must reach (the head) has another hash',
};

interface Options {
  location: string;
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
      help: { type: 'boolean', short: 'h' },
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
  return {
    location: positionals[0], threads, hasher, json: values.json ?? false, head: head ? { seq: Number(head[1]), hash: head[2] } : undefined,
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
  const pool = new VerifyPool(options.threads, options.hasher);
  const began = performance.now();
  try {
    const source = await openChainSource(options.location);
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
  const report = await verifyChunks(pool, source.chunks, { field: 'prev_hash', head, onProgress: progress, recycle: source.recycle });
  bar.finish(source.unit === 'bytes' ? source.total : done.records, done.records);
  return report;
}

function describe(source: ChainSource, report: VerifyReport, seconds: number): string {
  const rate = Math.round(report.total / Math.max(seconds, 1e-3)).toLocaleString('en-US');
  const first = report.problems[0];
  const lines = [
    `audit chain ${source.name}`,
    `  records checked   ${report.total.toLocaleString('en-US')}`,
    `  tampered          ${report.tampered.toLocaleString('en-US')}`,
    `  healthy           ${report.healthy ? 'yes' : 'NO'}`,
    `  first broken seq  ${first ? `${first.seq} (${REASONS[first.problem]})` : 'none'}`,
    `  time              ${seconds.toFixed(2)} s (${rate} records/s)`,
  ];
  if (report.problems.length > 0) {
    lines.push(`  problems (first ${report.problems.length}):`, ...report.problems.map(problemLine));
  }
  return `${lines.join('\n')}\n`;
}

function problemLine(problem: ChainProblem): string {
  return `    seq ${problem.seq}  ${problem.problem}  ${problem.hash ?? '-'}`;
}
