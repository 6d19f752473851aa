// Evaluation load over service instances sharing a partitioned audit log: a fresh wallet per request, each answer noted
// with the wallet's chain, and the checks every partitioned fault test makes of what was answered.
import assert from 'node:assert/strict';
import type { Cluster } from 'ioredis';
import { partitionOf } from '../../src/audit/record/partition.js';
import { chainPrefix } from '../../src/audit/redis/partitioned-audit-log.js';
import { postJson, sampleTrade } from './service.js';

export interface PartitionedAnswer {
  instance: number;
  /** The chain the wallet maps to (partitionOf), whatever was answered. */
  chain: number;
  status: number;
  seq: number | null;
  hash: string | null;
  audit_chain: unknown;
  decision: unknown;
  code: unknown;
  /** What an error verdict or a 503 says failed. */
  error: unknown;
}

export interface PartitionedLoad {
  answers: PartitionedAnswer[];
  /** Answers after the first `from`, of one instance and one or more chains. */
  since(from: number, instance: number, chains: readonly number[]): PartitionedAnswer[];
  stop(): Promise<void>;
}

/** `clients` loops, each a fresh wallet per request, sent to the instances in turn, until `stop()`. */
export function partitionedLoad(bases: readonly string[], partitions: number, clients = 4): PartitionedLoad {
  const answers: PartitionedAnswer[] = [];
  let running = true;
  let sent = 0;
  const client = async (c: number) => {
    while (running) {
      const n = ++sent;
      const wallet = `0x${(0xa1000000 + c).toString(16)}${n.toString(16).padStart(32, '0')}`;
      const instance = n % bases.length;
      const chain = partitionOf(wallet, partitions);
      const result = await postJson(`${bases[instance]}/api/v1/analyze/free`, sampleTrade({ wallet, amount: 1 })).catch(() => null);
      answers.push({
        instance, chain, status: result?.status ?? 0, seq: result?.json?.audit_seq ?? null, hash: result?.json?.audit_hash ?? null,
        audit_chain: result?.json?.audit_chain, decision: result?.json?.decision, code: result ? result.json?.code : 'no answer',
        error: result?.json?.error ?? result?.json?.detail,
      });
    }
  };
  const loops = Array.from({ length: clients }, (_, c) => client(c));
  return {
    answers,
    since: (from, instance, chains) => answers.slice(from).filter((a) => a.instance === instance && chains.includes(a.chain)),
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/**
 * Fail closed and lose nothing: every verdict names its wallet's chain and a seq answered once in that chain, whose
 * record the chain holds with the verdict's hash; every other answer is a 503 without a record and never an allow.
 */
export async function assertAnswersHeld(raw: Cluster, answers: readonly PartitionedAnswer[], partitions: number): Promise<void> {
  for (const a of answers.filter((answer) => answer.status !== 200)) {
    assert.equal(a.status, 503, JSON.stringify(a));
    assert.equal(a.hash, null, JSON.stringify(a));
    assert.notEqual(a.decision, 'allow', JSON.stringify(a));
  }
  for (let p = 0; p < partitions; p++) {
    const verdicts = answers.filter((a) => a.status === 200 && a.chain === p);
    for (const a of verdicts) assert.ok(a.audit_chain === p && Number.isSafeInteger(a.seq) && /^[0-9a-f]{64}$/.test(String(a.hash)), JSON.stringify(a));
    const seqs = verdicts.map((a) => String(a.seq));
    assert.equal(new Set(seqs).size, seqs.length, `chain ${p}: no seq answered twice`);
    const stored = seqs.length === 0 ? [] : await raw.hmget(`${chainPrefix(p, partitions)}records`, ...seqs);
    assert.deepEqual(verdicts.filter((a, i) => stored[i]?.slice(0, 64) !== a.hash), [], `chain ${p}: every acknowledged record is held`);
  }
}

/** Answers counted by status and code, for a failure message or a diagnostic. */
export function countBy(answers: readonly PartitionedAnswer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[`chain ${a.chain} ${a.status} ${String(a.code)}`] = (counts[`chain ${a.chain} ${a.status} ${String(a.code)}`] ?? 0) + 1;
  return counts;
}
