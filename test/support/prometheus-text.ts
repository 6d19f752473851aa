// A strict reader of the Prometheus text format 0.0.4, as promtool checks it: every line well-formed, every sample under its TYPE.
import assert from 'node:assert/strict';

export interface Family {
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*)?,?\\})? (\\S+)(?: -?\\d+)?$`);
/** A Go float, as Prometheus parses it: `NaN` and `Inf` in any case (prom-client writes `Nan`). */
const VALUE = /^(?:[+-]?(?:\d+\.?\d*(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)|[+-]?inf|nan)$/i;
/** Sample names a family of each type may carry besides its own name. */
const SUFFIXES: Record<Family['type'], string[]> = {
  counter: [''], gauge: [''], untyped: [''], histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'],
};

/** Families by name; fails on a malformed line, a sample of no declared family, a family declared twice or a bad value. */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  let current: { name: string; family: Family } | null = null;
  for (const line of text.split('\n').filter((l) => l !== '')) {
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      assert.match(name, new RegExp(`^${NAME}$`), line);
      const family = families.get(name) ?? { type: 'untyped', help: '', samples: [] };
      if (kind === 'TYPE') {
        assert.ok(!families.has(name) || families.get(name)!.samples.length === 0, `${name} declared after its samples`);
        assert.ok(rest in SUFFIXES, `${name}: unknown type ${rest}`);
        family.type = rest as Family['type'];
      } else family.help = rest;
      families.set(name, family);
      current = { name, family };
      continue;
    }
    assert.ok(!line.startsWith('#') || line.startsWith('# '), line);
    if (line.startsWith('#')) continue;
    const sample = SAMPLE.exec(line);
    assert.ok(sample, `not a sample line: ${line}`);
    const [, name, labels, value] = sample as unknown as [string, string, string | undefined, string];
    assert.ok(current && SUFFIXES[current.family.type].some((suffix) => `${current!.name}${suffix}` === name), `${name} outside its family: ${line}`);
    assert.match(value, VALUE, line);
    const parsed = Object.fromEntries([...(labels ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    current!.family.samples.push({ name, labels: parsed, value: Number(value) });
  }
  return families;
}
