// The verifier side of bench:verify's incremental figure, in a process of its own as an auditor runs it:
// `node incremental-verifier.js BASE TRIES` with the trusted checkpoint as JSON on stdin; prints
// {records, ms: [...]} with the wall time of each `audit:verify --since` (extendCheckpoint), in order.
import { extendCheckpoint } from '../src/audit/proof/remote-check.js';
import type { Checkpoint } from '../src/audit/proof/checkpoint.js';

const [base, tries] = [process.argv[2], Number(process.argv[3])];
let input = '';
for await (const chunk of process.stdin) input += chunk;
const trusted = JSON.parse(input) as Checkpoint;
const ms: number[] = [];
let records = 0;
for (let i = 0; i < tries; i++) {
  const start = performance.now();
  records = (await extendCheckpoint(base, trusted)).records;
  ms.push(performance.now() - start);
}
process.stdout.write(JSON.stringify({ records, ms }));
