// The Redis backend's facts hash holds each record's facts and each shared document it names, all by hash:
// a shared document is one field however many records name it (ARCHITECTURE.md "Recorded facts").
import type { AuditEntry, FactsLine } from '../record/audit-log.js';
import { usesOf } from '../record/facts-uses.js';

/** `hash, text` pairs for HSET: each document once, a shared one before the facts that name it. */
export function factsFields(entries: readonly AuditEntry[]): string[] {
  const fields: string[] = [];
  const sent = new Set<string>();
  for (const { facts } of entries) {
    if (!facts) continue;
    for (const shared of facts.shared ?? []) {
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

/** `own` with the shared documents each names (read by `read`, a round trip a level) before the first that names them. */
export async function withSharedDocuments(own: FactsLine[], read: (hashes: string[]) => Promise<Array<string | null>>): Promise<FactsLine[]> {
  const documents = new Map<string, string>();
  let wanted = [...new Set(own.flatMap((line) => usesOf(line.text)))];
  while (wanted.length > 0) {
    const texts = await read(wanted);
    const found = wanted.flatMap((hash, i) => (texts[i] === null ? [] : [[hash, texts[i]!] as const]));
    for (const [hash, text] of found) documents.set(hash, text);
    wanted = [...new Set(found.flatMap(([, text]) => usesOf(text)))].filter((hash) => !documents.has(hash));
  }
  const answer: FactsLine[] = [];
  const listed = new Set<string>();
  const list = (seq: number, text: string): void => {
    for (const hash of usesOf(text)) {
      const shared = documents.get(hash);
      if (shared === undefined || listed.has(hash)) continue;
      listed.add(hash);
      list(seq, shared);
      answer.push({ seq, hash, text: shared });
    }
  };
  for (const line of own) {
    list(line.seq, line.text);
    answer.push(line);
  }
  return answer;
}
