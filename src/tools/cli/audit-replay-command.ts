// `npm run audit:replay -- <source>`: re-derives each recorded verdict from the facts kept beside it.
import { parseArgs } from 'node:util';
import { parseLine } from '../../audit/record/record.js';
import { FactsDocumentCheck } from '../../audit/record/facts-uses.js';
import { AUDIT_BACKENDS } from '../../audit/backends.js';
import { openReplaySource } from '../../evaluation/replay/replay-sources.js';
import { replayRecord, type ReplayFinding, type ReplayProblem } from '../../evaluation/replay/replay-record.js';
import { ProgressBar } from './progress-bar.js';
import type { CliIo } from './audit-verify-command.js';

export const EXIT_REPRODUCED = 0;
export const EXIT_DIFFERS = 1;
export const EXIT_ERROR = 2;

const USAGE = `usage: npm run audit:replay -- <source> [--seq N | --from N --to M] [--chain P] [--json]

<source> is a data directory (DATA_DIR), its audit/audit.log (facts.log beside it), or a running
service's base URL (pages through GET /api/v1/audit/export and /api/v1/audit/facts). On a service
whose log is partitioned (AUDIT_PARTITIONS) seqs count within a chain: every chain is replayed over
the range, or only chain P with --chain.

Each record's facts must hash to its facts_hash (and its outcome document to its outcome_hash), and
the risk engine, given them, must give the record's decision, risk score and reasons. Records written before facts were kept are counted,
not replayed.

Exit status: 0 every verdict reproduced, 1 a verdict or its facts do not hold, 2 the source could not be read.`;

const MEANINGS: Record<ReplayProblem, string> = {
  facts_missing: 'no facts are kept for it',
  facts_mismatch: 'its facts do not hash to its facts_hash',
  facts_unreadable: 'its facts cannot be read',
  outcome_missing: 'no outcome document is kept under the outcome_hash it names',
  outcome_mismatch: 'its outcome document does not hash to its outcome_hash',
  verdict_differs: 'the engine gives another verdict on its facts',
  rules_changed: 'judged under other rules; today\'s engine gives another verdict',
};

interface Options {
  location: string;
  from: number;
  to: number;
  chain?: number;
  json: boolean;
}

function parseOptions(argv: string[]): Options | { text: string; status: number } {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true,
    options: {
      seq: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, chain: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { text: USAGE, status: EXIT_REPRODUCED };
  if (positionals.length !== 1) return { text: USAGE, status: EXIT_ERROR };
  const number = (text: string | undefined, fallback: number) => (text === undefined ? fallback : Number(text));
  const seq = number(values.seq, Number.NaN);
  const from = Number.isNaN(seq) ? number(values.from, 1) : seq;
  const to = Number.isNaN(seq) ? number(values.to, Number.MAX_SAFE_INTEGER) : seq;
  if (values.seq !== undefined && (values.from !== undefined || values.to !== undefined)) return { text: `--seq or --from/--to, not both\n\n${USAGE}`, status: EXIT_ERROR };
  if (![from, to].every((n) => Number.isSafeInteger(n) && n >= 1) || from > to) return { text: `seqs are integers from 1, --from at most --to\n\n${USAGE}`, status: EXIT_ERROR };
  const chain = values.chain === undefined ? undefined : Number(values.chain);
  if (chain !== undefined && !(Number.isInteger(chain) && chain >= 0)) return { text: `--chain is a chain number (0 or more)\n\n${USAGE}`, status: EXIT_ERROR };
  return { location: positionals[0], from, to, chain, json: values.json ?? false };
}

export async function runAuditReplay(argv: string[], io: CliIo): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(argv);
  } catch (error) {
    options = { text: `${(error as Error).message}\n\n${USAGE}`, status: EXIT_ERROR };
  }
  if ('text' in options) {
    (options.status === EXIT_REPRODUCED ? io.stdout : io.stderr).write(`${options.text}\n`);
    return options.status;
  }
  const began = performance.now();
  const counts = { records: 0, reproduced: 0, without_facts: 0, differs: 0, rules_changed: 0 };
  const findings: ReplayFinding[] = [];
  try {
    const source = await openReplaySource(options.location, options.from, options.to, AUDIT_BACKENDS, options.chain);
    const bar = new ProgressBar({ stream: io.stderr, total: source.total ?? 0, label: 'replaying' });
    const documents = new FactsDocumentCheck();
    for await (const item of source.items) {
      counts.records++;
      const outcome = replayRecord(parseLine(item.line), item.facts, item.shared, documents);
      if (outcome.kind === 'reproduced') counts.reproduced++;
      else if (outcome.kind === 'no_facts') counts.without_facts++;
      else {
        if (outcome.finding.problem === 'rules_changed') counts.rules_changed++;
        else counts.differs++;
        if (findings.length < 100) findings.push(item.chain === undefined ? outcome.finding : { ...outcome.finding, chain: item.chain });
      }
      bar.update(counts.records, counts.records);
    }
    bar.finish(counts.records, counts.records);
    const seconds = (performance.now() - began) / 1000;
    io.stdout.write(options.json ? `${JSON.stringify({ source: source.name, ...counts, findings, seconds })}\n` : describe(source.name, counts, findings, seconds));
    return counts.differs > 0 ? EXIT_DIFFERS : EXIT_REPRODUCED;
  } catch (error) {
    io.stderr.write(`audit:replay: ${(error as Error).message}\n`);
    return EXIT_ERROR;
  }
}

function describe(name: string, counts: Record<string, number>, findings: ReplayFinding[], seconds: number): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const lines = [
    `audit replay ${name}`,
    `  records read      ${n(counts.records)}`,
    `  reproduced        ${n(counts.reproduced)}`,
    `  without facts     ${n(counts.without_facts)} (written before facts were kept)`,
    `  not reproduced    ${n(counts.differs)}`,
    `  rules changed     ${n(counts.rules_changed)}`,
    `  time              ${seconds.toFixed(2)} s`,
  ];
  for (const finding of findings) lines.push(`    ${finding.chain === undefined ? '' : `chain ${finding.chain} `}seq ${finding.seq}  ${finding.problem}: ${MEANINGS[finding.problem]}; ${finding.detail}`);
  return `${lines.join('\n')}\n`;
}
