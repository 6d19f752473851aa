// `npm run bench:audit-index -- [--lines N] [--prefill N] [--commit N] [--rounds N] [--baseline <ref>]`: CPU a line of
// the file audit index's writes (staging and committing lines as the log's syncs do) and of a wallet head read that
// misses the log's recent heads, over an index already holding `prefill` lines; for a fleet of 1,000 wallets in turn
// and for a new wallet every line (ARCHITECTURE.md "File audit index"). CPU is process.cpuUsage() over the timed lines:
// this process does nothing else meanwhile. Rounds alternate the builds; the table gives each build's median.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { LinkedLine, LogIndex } from '../src/audit/file/log-index.js';
import { addBaseline, buildBaseline } from './baseline-worktree.js';
import { THIS_BUILD, THIS_CHECKOUT, type ServiceBuild } from './service.js';

interface Settings {
  lines: number;
  prefill: number;
  commit: number;
  rounds: number;
}

interface Figures {
  writeUs: number;
  headReadUs: number;
}

const SCENARIOS = [
  { label: 'fleet of 1,000 wallets', wallets: 1000 },
  { label: 'a new wallet every line', wallets: Number.MAX_SAFE_INTEGER },
];
const HASH = 'ab'.repeat(32);
const LINE_BYTES = 700;
const GROUP = 25;

const cpuUs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};

async function measure(build: ServiceBuild, wallets: number, settings: Settings): Promise<Figures> {
  const module = await import(pathToFileURL(join(build.dir, 'dist/src/audit/file/log-index.js')).href) as { LogIndex: typeof LogIndex };
  const dir = mkdtempSync(join(tmpdir(), 'audit-index-bench-'));
  const index = module.LogIndex.open(dir, false);
  try {
    const newest = new Map<string, number>();
    let seq = 0;
    const walletOf = (n: number) => `0x${((n * 7919) % wallets + 1).toString(16).padStart(40, '0')}`;
    // Groups of 25 lines, each linked as the log links them (an index that keeps no links ignores `prev`), committed
    // every `commit` lines.
    const write = (count: number) => {
      for (let done = 0; done < count; done += settings.commit) {
        for (let group = 0; group < settings.commit; group += GROUP) {
          const lines: LinkedLine[] = [];
          for (let i = 0; i < GROUP; i++) {
            const wallet = walletOf(seq);
            lines.push({ offset: seq * LINE_BYTES, length: LINE_BYTES, wallet, hash: HASH, prev: newest.get(wallet) ?? 0 });
            seq += 1;
            newest.set(wallet, seq);
          }
          index.stage(lines, []);
        }
        index.commitStaged();
      }
    };
    write(settings.prefill);
    let since = process.cpuUsage();
    write(settings.lines);
    const writeUs = cpuUs(since) / settings.lines;
    since = process.cpuUsage();
    for (let n = 0; n < settings.lines; n++) index.head(walletOf(n));
    return { writeUs, headReadUs: cpuUs(since) / settings.lines };
  } finally {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function settingsOf(values: Record<string, string | undefined>): Settings {
  const whole = (name: string) => {
    const value = Number(values[name]);
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got ${values[name]}`);
    return value;
  };
  const settings = { lines: whole('lines'), prefill: whole('prefill'), commit: whole('commit'), rounds: whole('rounds') };
  if (settings.commit % GROUP !== 0) throw new Error(`--commit must be a multiple of ${GROUP} (lines a group), got ${settings.commit}`);
  return settings;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      lines: { type: 'string', default: '40000' }, prefill: { type: 'string', default: '200000' }, commit: { type: 'string', default: '400' },
      rounds: { type: 'string', default: '3' }, baseline: { type: 'string' },
    },
  });
  const settings = settingsOf(values);
  const baseline = values.baseline === undefined ? null : addBaseline(THIS_CHECKOUT, values.baseline);
  try {
    if (baseline) await buildBaseline(baseline);
    const builds = baseline ? [baseline.build, THIS_BUILD] : [THIS_BUILD];
    const figures = new Map<string, Figures[]>();
    for (let round = 0; round < settings.rounds; round++) {
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        for (const scenario of SCENARIOS) {
          process.stderr.write(`round ${round + 1}: ${build.commit}, ${scenario.label}\n`);
          const key = `${build.commit}\t${scenario.label}`;
          figures.set(key, [...(figures.get(key) ?? []), await measure(build, scenario.wallets, settings)]);
        }
      }
    }
    process.stdout.write(`${settings.prefill} lines indexed first, then ${settings.lines} timed, committed every ${settings.commit}; medians of ${settings.rounds} rounds\n`);
    process.stdout.write(`${'build'.padEnd(14)} ${'scenario'.padEnd(24)} ${'write us/line'.padStart(14)} ${'head read us'.padStart(13)}  (rounds)\n`);
    for (const [key, rows] of figures) {
      const [build, scenario] = key.split('\t');
      const write = rows.map((row) => row.writeUs);
      const read = rows.map((row) => row.headReadUs);
      const each = rows.map((row) => `${row.writeUs.toFixed(1)}/${row.headReadUs.toFixed(1)}`).join(' ');
      process.stdout.write(`${build.padEnd(14)} ${scenario.padEnd(24)} ${median(write).toFixed(2).padStart(14)} ${median(read).toFixed(2).padStart(13)}  (${each})\n`);
    }
  } finally {
    baseline?.remove();
  }
}

main().catch((error: Error) => {
  process.stderr.write(`bench:audit-index: ${error.message}\n`);
  process.exitCode = 1;
});
