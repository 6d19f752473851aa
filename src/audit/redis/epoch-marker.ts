// The shared chain's epoch marker and the rule that tells a healthy store from one that lost state.
import { randomUUID } from 'node:crypto';
import type { AuditHead } from '../record/audit-log.js';
import type { RememberedHead } from './head-memory.js';

/** Written once, when a chain is created; a store that comes back without it forgot everything. */
export interface EpochMarker {
  id: string;
  created_at: string;
  /** Set when an operator abandoned a lost epoch: tokens issued earlier are refused (their revocations are gone). */
  tokens_not_before_ms: number | null;
}

/** What one MULTI read of the store shows: the marker text, the head, and the record at the remembered seq. */
export interface StoreProbe {
  marker: string | null;
  head: AuditHead;
  /** The stored line at the remembered seq; null when absent or when nothing is remembered. */
  lineAtRemembered: string | null;
}

export type Judgement =
  | { kind: 'ok'; marker: EpochMarker }
  | { kind: 'lost'; detail: string }
  | { kind: 'create' }
  | { kind: 'adopt'; marker: EpochMarker };

export function newMarkerText(nowMs: number, replacingLostEpoch: boolean): string {
  const marker: EpochMarker = {
    id: randomUUID(),
    created_at: new Date(nowMs).toISOString(),
    tokens_not_before_ms: replacingLostEpoch ? nowMs : null,
  };
  return JSON.stringify(marker);
}

export function parseMarker(text: string): EpochMarker | null {
  try {
    const value = JSON.parse(text) as Partial<EpochMarker>;
    if (typeof value.id !== 'string' || value.id.length === 0) return null;
    const notBefore = typeof value.tokens_not_before_ms === 'number' ? value.tokens_not_before_ms : null;
    return { id: value.id, created_at: String(value.created_at ?? ''), tokens_not_before_ms: notBefore };
  } catch {
    return null;
  }
}

/**
 * Conservative on purpose: every way the store can differ from what this instance saw
 * is a lost store. A store ahead of the memory is fine (other instances appended).
 */
export function judge(memory: RememberedHead, probe: StoreProbe): Judgement {
  const marker = probe.marker === null ? null : parseMarker(probe.marker);
  if (memory.epoch === null) return marker ? { kind: 'adopt', marker } : { kind: 'create' };
  const saw = `epoch ${memory.epoch} up to seq ${memory.seq}`;
  if (probe.marker === null) {
    return lost(`the store's epoch marker is gone (this instance saw ${saw}): Redis lost its data`);
  }
  if (marker === null || marker.id !== memory.epoch) {
    return lost(`the store carries epoch ${marker?.id ?? '(unreadable)'}, not the ${saw} this instance saw: another chain replaced it`);
  }
  if (probe.head.seq < memory.seq) {
    return lost(`the store's chain head is seq ${probe.head.seq}, behind the ${saw} this instance saw: acknowledged records are gone`);
  }
  if (memory.seq > 0 && probe.lineAtRemembered?.slice(0, 64) !== memory.hash) {
    return lost(`record ${memory.seq} in the store is not the one this instance saw (${memory.hash}): the chain was rewritten`);
  }
  return { kind: 'ok', marker };
}

/** A head learned from the store (a refused append, a head read) that is behind the memory means loss. */
export function headBehind(memory: RememberedHead, head: AuditHead): string | null {
  if (memory.epoch === null) return null;
  if (head.seq > memory.seq || (head.seq === memory.seq && head.hash === memory.hash)) return null;
  const where = head.seq < memory.seq ? 'behind' : 'a different record at';
  return `the store's chain head is seq ${head.seq}, ${where} the seq ${memory.seq} (epoch ${memory.epoch}) this instance saw: acknowledged records are gone`;
}

function lost(detail: string): Judgement {
  return { kind: 'lost', detail };
}
