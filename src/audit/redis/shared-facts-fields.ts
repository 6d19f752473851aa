// The Redis backend's facts hash holds each record's facts and each shared document it names, all by hash:
// a shared document is one field however many records name it (ARCHITECTURE.md "Recorded facts").
import type { AuditEntry, FactsLine } from '../record/audit-log.js';
import { usesOf } from '../record/facts-uses.js';
import { outcomeDocument } from '../record/outcome.js';

/**
 * `hash, text` pairs for HSET: each document once, a shared one before the facts that name it, and the outcome
 * document a format 3 record names (outcome.ts), kept in the same hash.
 */
export function factsFields(entries: readonly AuditEntry[]): string[] {
  const fields: string[] = [];
  const sent = new Set<string>();
  for (const entry of entries) {
    const { facts } = entry;
    if (!facts) continue;
    for (const shared of [...(facts.shared ?? []), outcomeDocument(entry)]) {
      if (sent.has(shared.hash)) continue;
      sent.add(shared.hash);
      fields.push(shared.hash, shared.text);
    }
    // A record's own facts are named by their hash as well: a fleet wallet judged again on the same facts sends none.
    if (sent.has(facts.hash)) continue;
    sent.add(facts.hash);
    fields.push(facts.hash, facts.text);
  }
  return fields;
}

/**
 * `own` with the shared documents each names (read by `read`, a round trip a level) before the first that names them;
 * `outcomes`: the outcome document each seq's record names (format 3), listed before its facts too.
 */
export async function withSharedDocuments(
  own: FactsLine[], read: (hashes: string[]) => Promise<Array<string | null>>, outcomes: ReadonlyMap<number, string> = new Map(),
): Promise<FactsLine[]> {
  const documents = new Map<string, string>();
  const named = (line: FactsLine) => [...usesOf(line.text), ...(outcomes.has(line.seq) ? [outcomes.get(line.seq)!] : [])];
  let wanted = [...new Set(own.flatMap(named))];
  while (wanted.length > 0) {
    const texts = await read(wanted);
    const found = wanted.flatMap((hash, i) => (texts[i] === null ? [] : [[hash, texts[i]!] as const]));
    for (const [hash, text] of found) documents.set(hash, text);
    wanted = [...new Set(found.flatMap(([, text]) => usesOf(text)))].filter((hash) => !documents.has(hash));
  }
  const answer: FactsLine[] = [];
  const listed = new Set<string>();
  const list = (seq: number, text: string, also: string[] = []): void => {
    for (const hash of [...usesOf(text), ...also]) {
      const shared = documents.get(hash);
      if (shared === undefined || listed.has(hash)) continue;
      listed.add(hash);
      list(seq, shared);
      answer.push({ seq, hash, text: shared });
    }
  };
  for (const line of own) {
    list(line.seq, line.text, outcomes.has(line.seq) ? [outcomes.get(line.seq)!] : []);
    answer.push(line);
  }
  return answer;
}
