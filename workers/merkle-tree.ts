// Worker thread holding the audit Merkle tree: appends arrive in order, questions are answered in
// the order asked, so a question sees every append sent before it (src/audit/proof/tree-thread.ts).
import { parentPort } from 'node:worker_threads';
import { MerkleTree } from '../src/audit/proof/merkle.js';
import type { TreeMessage, TreeReply } from '../src/audit/proof/tree-thread.js';

const tree = new MerkleTree();
const hex = (hashes: Buffer[]) => hashes.map((hash) => hash.toString('hex'));

function answer(message: Exclude<TreeMessage, { kind: 'append' }>): unknown {
  switch (message.kind) {
    case 'root': return tree.root(message.size).toString('hex');
    case 'leaf': return tree.leaf(message.index).toString('hex');
    case 'inclusion': return hex(tree.inclusionProof(message.index, message.size));
    case 'consistency': return hex(tree.consistencyProof(message.first, message.second));
  }
}

parentPort!.on('message', (message: TreeMessage) => {
  if (message.kind === 'append') {
    const { hashes } = message;
    for (let at = 0; at < hashes.length; at += 64) tree.appendRecordHash(hashes.slice(at, at + 64));
    return;
  }
  let reply: TreeReply;
  try {
    reply = { id: message.id, ok: true, value: answer(message) };
  } catch (error) {
    reply = { id: message.id, ok: false, error: (error as Error).message };
  }
  parentPort!.postMessage(reply);
});
