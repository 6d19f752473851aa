// What a forger with write access to DATA_DIR/audit does: change a document of facts.log, then seal audit.log again so
// every hash and link still holds. Replay and verification tests use it to show what only re-deriving can catch.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, parseLine, type AuditRecordBody } from '../../src/audit/record/record.js';
import { sha256Hex } from '../../src/audit/record/sha256.js';
import { canonicalText } from '../../src/evaluation/recorded-facts.js';

/**
 * Replaces the first facts.log document `pick` chooses by what `edit` returns (under its new hash), then re-seals
 * audit.log: `rename` gives a record the members that name the new hash, and every later `prev_hash` and
 * `wallet_prev_hash` follows the hashes that changed. Returns the document's old and new hash.
 */
export function forgeDocument(
  auditDir: string,
  pick: (line: string) => boolean,
  edit: (document: any) => unknown,
  rename: (body: Omit<AuditRecordBody, 'hash'>, oldHash: string, newHash: string) => Partial<AuditRecordBody>,
): void {
  const factsPath = join(auditDir, 'facts.log');
  const factsLines = readFileSync(factsPath, 'utf8').trim().split('\n');
  const index = factsLines.findIndex(pick);
  const [seq, oldHash] = factsLines[index].split(' ');
  const text = canonicalText(edit(JSON.parse(factsLines[index].slice(factsLines[index].indexOf('{')))));
  const newHash = sha256Hex(text);
  factsLines[index] = `${seq} ${newHash} ${text}`;
  writeFileSync(factsPath, `${factsLines.join('\n')}\n`);
  const logPath = join(auditDir, 'audit.log');
  const renamed = new Map<string, string>();
  const resealed = readFileSync(logPath, 'utf8').trim().split('\n').map((line) => {
    const { hash, ...body } = parseLine(line);
    const changed: AuditRecordBody = {
      ...body,
      prev_hash: renamed.get(body.prev_hash) ?? body.prev_hash,
      wallet_prev_hash: renamed.get(body.wallet_prev_hash) ?? body.wallet_prev_hash,
      ...rename(body, oldHash, newHash),
    };
    const canonical = canonicalJson(changed);
    const resealedHash = sha256Hex(canonical);
    if (resealedHash !== hash) renamed.set(hash, resealedHash);
    return `${resealedHash} ${canonical}`;
  });
  writeFileSync(logPath, `${resealed.join('\n')}\n`);
}
