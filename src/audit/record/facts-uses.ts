// What a facts document names by hash (its `uses`), and whether a record's facts hold together with every
// document they name: a shared document that does not hash to its name fails every record that names it
// (ARCHITECTURE.md "Recorded facts"). Pure.
import { sha256Hex } from './sha256.js';
import { RecentMap } from '../../memo/recent-map.js';

/**
 * `uses` sorts after every other member of a facts document, so in canonical JSON it is the last member of the
 * outer object: `...,"uses":{"<name>":"<hash>",...}}`. The text is hashed before its uses are trusted, so only
 * the bytes the service wrote are read this way.
 */
const USES = /"uses":\{((?:"[a-z_]+":"[0-9a-f]{64}",?)+)\}\}$/;
const HASH = /[0-9a-f]{64}/g;

/** The hashes a facts document names; none for a document that names none (a format 1 record's facts, a leaf). */
export function usesOf(text: string): string[] {
  const uses = USES.exec(text);
  return uses === null ? [] : uses[1].match(HASH) ?? [];
}

/** `facts_missing`: a document the record needs is not kept; `facts_mismatch`: one is, and hashes to something else. */
export type FactsProblemKind = 'facts_missing' | 'facts_mismatch';

/**
 * Holds a record's facts and everything they name to their hashes. A shared document found sound is remembered
 * by its text, so one kept for a thousand verdicts is hashed once, not a thousand times.
 */
export class FactsDocumentCheck {
  private readonly sound = new RecentMap<string, string>(16_384);

  /** Whether `document` hashes to `hash`; a document found sound is remembered, so it is hashed once. */
  holds(hash: string, document: string): boolean {
    if (this.sound.get(hash) === document) return true;
    if (sha256Hex(document) !== hash) return false;
    this.sound.set(hash, document);
    return true;
  }

  /** `text`: the facts kept under `hash` (undefined when none are); `shared`: the documents found beside them, by hash. */
  problem(hash: string, text: string | undefined, shared: ReadonlyMap<string, string> | undefined): FactsProblemKind | null {
    if (text === undefined) return 'facts_missing';
    if (sha256Hex(text) !== hash) return 'facts_mismatch';
    const pending = usesOf(text);
    for (const seen = new Set<string>(); pending.length > 0;) {
      const used = pending.pop()!;
      if (seen.has(used)) continue;
      seen.add(used);
      const document = shared?.get(used);
      if (document === undefined) return 'facts_missing';
      if (!this.holds(used, document)) return 'facts_mismatch';
      // What it names is looked up again each time: another page may hold another copy of it.
      pending.push(...usesOf(document));
    }
    return null;
  }
}

/** Every document `text` names, directly or through another, that `lookup` finds, by hash; one it cannot find is left out. */
export function namedDocuments(text: string, lookup: (hash: string) => string | undefined): Map<string, string> {
  const found = new Map<string, string>();
  for (const pending = usesOf(text); pending.length > 0;) {
    const hash = pending.pop()!;
    if (found.has(hash)) continue;
    const document = lookup(hash);
    if (document === undefined) continue;
    found.set(hash, document);
    pending.push(...usesOf(document));
  }
  return found;
}
