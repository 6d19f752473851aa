// Proves that audit record SEQ is in the service's signed log, with Node alone: node verify-proof.mjs URL SEQ
import { createHash, createPublicKey, verify } from 'node:crypto';

const [base, seq] = [process.argv[2], Number(process.argv[3])];
const get = async (path) => {
  const response = await fetch(new URL(path, base));
  if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
  return path.startsWith('/api/v1/audit/export') ? response.text() : response.json();
};
const sha256 = (...parts) => parts.reduce((h, part) => h.update(part), createHash('sha256')).digest();
const fail = (reason) => { console.log(`REFUSED: ${reason}`); process.exit(1); };

const key = await get('/.well-known/audit-key.json');
const proof = await get(`/api/v1/audit/proof/${seq}`);
const { signature, ...signed } = proof.checkpoint;
// RFC 8785 canonical JSON of a flat object of integers and ASCII strings: keys sorted, no spaces.
const canonical = JSON.stringify(Object.fromEntries(Object.entries(signed).sort(([a], [b]) => (a < b ? -1 : 1))));
const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(key.public_key, 'base64')]);
const publicKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
if (signed.key_id !== key.key_id || !verify(null, Buffer.from(canonical), publicKey, Buffer.from(signature, 'base64'))) fail('bad checkpoint signature');

const line = (await get(`/api/v1/audit/export?from_seq=${seq}&limit=1`)).split('\n')[0];
const [hash, body] = [line.slice(0, 64), line.slice(65)];
if (sha256(Buffer.from(body)).toString('hex') !== hash || JSON.parse(body).seq !== seq) fail('the record does not hash to its hash');
let node = sha256(Buffer.from([0]), Buffer.from(hash, 'hex'));
if (node.toString('hex') !== proof.leaf_hash || proof.leaf_index !== seq - 1 || proof.tree_size !== signed.tree_size) fail('the proof is for another leaf or tree');

// RFC 9162 section 2.1.3.2, with sizes kept as plain numbers.
let [fn, sn] = [seq - 1, signed.tree_size - 1];
for (const sibling of proof.audit_path.map((h) => Buffer.from(h, 'hex'))) {
  if (sn === 0) fail('the path is too long');
  if (fn % 2 === 1 || fn === sn) {
    node = sha256(Buffer.from([1]), sibling, node);
    while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn / 2, Math.floor(sn / 2)];
  } else node = sha256(Buffer.from([1]), node, sibling);
  [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
}
if (sn !== 0 || node.toString('hex') !== signed.root_hash) fail('the path does not lead to the signed root');
console.log(`record ${seq} is in checkpoint ${signed.tree_size} (root ${signed.root_hash}), signed by ${key.key_id}`);
