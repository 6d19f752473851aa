// The methodology's scoring table, recorded facts and replay, and checkpoints and proofs: the facts a
// third party needs to re-derive a verdict and to check a proof without this code (ARCHITECTURE.md
// "Recorded facts", "Checkpoints and proofs").
import { PATHS } from '../../catalogue/published-facts.js';
import { FACTS_FORMAT, SCORING_TABLE_HASH } from '../../evaluation/recorded-facts.js';
import { ENGINE_VERSION, SCORING_TABLE } from '../../risk/scoring-table.js';

export function scoringTableSection(): string {
  return [
    '## Scoring table',
    '',
    `Engine version \`${ENGINE_VERSION}\`; the table's SHA-256 (of its RFC 8785 form) is \`${SCORING_TABLE_HASH}\`.`,
    'Every audit record\'s facts name both, so a change of rules shows in the records written after it. The table:',
    'category maxima, the weight of each signal, the thresholds that trigger them, the band limits, the tier',
    'policies and the service-token holdings each tier needs.',
    '',
    '```json',
    JSON.stringify(SCORING_TABLE, null, 2),
    '```',
    '',
  ].join('\n');
}

export function recordedFactsSection(): string {
  return [
    '### The facts behind each verdict',
    '',
    'Records written now carry `format: 3` and `facts_hash`: the SHA-256 of the RFC 8785 form of the facts the',
    'verdict was judged on, which are kept beside the record (records without them are format 1 and verify as',
    'before; format 2 records, written before format 3, carry `facts_hash` and their outcome in their own bytes).',
    'A format 3 record names its outcome the same way, by `outcome_hash`: the SHA-256 of the RFC 8785 form of',
    '`{kind: "outcome", price_source, price_usd, reasons}`, kept beside its facts; it must hash to its name too.',
    `The facts are \`{format: ${FACTS_FORMAT}, input, origins, uses: {context}}\`: what is the verdict's own, and`,
    'the hash of a `context` document whose `uses` names, each by the SHA-256 of its RFC 8785 form, the documents many',
    'verdicts share: `engine` (`version`, `scoring_table_hash`), `policy`, `registry` (`by_symbol`, `by_address`), `price`',
    '(`fact` and `origin`) and `safety` (`fact`). Each document must hash to the name it is used by; put together they',
    'are the facts below. Facts of format 1 are one document, `{format: 1, engine, input, origins}`.',
    '',
    '- `input` is the engine\'s whole input as scored: the trade with its defaults, the tier policy and the',
    '  entitled tier, the registry entries for the symbol and for the contract, the price (`usd`, `source`,',
    '  `stale`, `deviationBps`), the token-safety fact, the wallet fact (window count and limit, daily P&L),',
    '  the blocked assets and the evaluation time `nowMs`.',
    '- `origins` says where they came from: `price` (an oracle round: `feed`, `round_id`, `answer`, `decimals`,',
    '  `updated_at` and the `block_number` it was read at, with the venue pool\'s price beside it when read; or',
    '  the venue pool `pool_id` and price; or the registry default), `tier` (`holdings` with the service-token',
    '  balance read, `channel`, or `payment`) and `safety_checked_at` (when the token-safety result was made).',
    '',
    `\`GET ${PATHS.auditFacts}?from_seq=&limit=\` gives \`<seq> <facts_hash> <facts JSON>\` per record, each shared document`,
    'it names listed once before it. To re-derive a verdict: check that SHA-256 of the facts JSON equals the record\'s',
    '`facts_hash` and that every document they name hashes to its name, then apply the score and',
    'bands above with the scoring table to `input`: the decision, score and reasons must be the record\'s.',
    '`npm run audit:replay -- <DATA_DIR | audit.log | http://host:port> [--seq N | --from N --to M]` does this with',
    'the engine itself for every record and exits 1 when any does not follow from its facts (2 when it could not',
    'read them). A record judged under another engine version or table that no longer follows is reported as',
    '`rules_changed`, not as a failure.',
    '',
  ].join('\n');
}

export function checkpointSection(): string {
  return [
    '### Checkpoints and proofs',
    '',
    'A Merkle tree over the global chain in the shape of RFC 9162 section 2.1: leaf `i` is the record with seq',
    '`i + 1`, its leaf hash SHA-256(0x00 || the 32 bytes of the record\'s `hash`); an interior node is SHA-256(0x01 ||',
    'left || right); a tree of `n` leaves splits at the largest power of two below `n`. A signed checkpoint',
    '`{tree_size, root_hash, timestamp, last_seq, last_hash, key_id, signature}` is made every',
    '`AUDIT_CHECKPOINT_RECORDS` records or `AUDIT_CHECKPOINT_SECONDS` seconds of traffic; `signature` is Ed25519 over',
    `the RFC 8785 form of the other fields, base64, checked with the key at \`${PATHS.auditKey}\``,
    '(`{alg: "Ed25519", key_id, public_key}`, the raw 32-byte key in base64).',
    '',
    `- \`GET ${PATHS.auditCheckpoint}[?tree_size=]\`: the latest checkpoint, or the one of that size (404 when none has it).`,
    `- \`GET ${PATHS.auditProof}/{seq}[?tree_size=]\`: \`{seq, leaf_index, leaf_hash, tree_size, audit_path, checkpoint}\`,`,
    '  `audit_path` the sibling hashes from the leaf up (RFC 9162 section 2.1.3.2 checks it).',
    `- \`GET ${PATHS.auditConsistency}?first=&second=\`: \`{first, second, proof}\` between two checkpoints (section 2.1.4.2).`,
    '',
    '`npm run audit:verify -- <url> --prove SEQ` checks one record against the latest signed checkpoint;',
    '`--since <checkpoint file>` checks only the records after a checkpoint already trusted, and that the latest',
    'checkpoint extends it.',
    '',
    'A service run with `AUDIT_PARTITIONS=K` (K > 1, Redis only) keeps K chains: a wallet\'s records all go to chain',
    '`partitionOf(wallet)`, the first 4 bytes of SHA-256 over the lower-case address, big-endian, mod K; seqs count',
    'within a chain, a verdict names it as `audit_chain` and a listed record as `chain` (outside the hashed bytes).',
    'One checkpoint `{partitions, tree_size, root_hash, timestamp, chains, key_id, signature}` lists every chain\'s',
    'head `{chain, tree_size, root_hash, last_hash}` and signs the RFC 9162 root over K leaves, leaf p',
    'SHA-256(0x00 || SHA-256(RFC 8785 form of head p)); `tree_size` is the sum of the chains\' sizes. A proof',
    `(\`GET ${PATHS.auditProof}/{seq}?chain=p\`) adds \`chain\` and \`chain_path\`, the chain\'s leaf up to the signed root;`,
    'exports take `?chain=p`, and the global verification checks every chain. Each stored checkpoint extends the one',
    `before it in every chain, so \`GET ${PATHS.auditConsistency}\` answers \`{first, second, chains: [{chain, first, second, proof}]}\`,`,
    'one RFC 9162 consistency proof per chain, and `--since` extends a trusted checkpoint chain by chain.',
    'With K = 1 none of this applies.',
    '',
  ].join('\n');
}

