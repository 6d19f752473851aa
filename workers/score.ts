// Piscina task module: scores a micro-batch of trades with the pure risk engine, counterfactuals included.
import { scoreTrade } from '../src/risk/counterfactuals.js';
import { decodeInputs, encodeResults } from '../src/risk/wire.js';

// Piscina calls the module's default export with a batch in the wire form; it answers in that form too.
export default function scoreBatch(batch: string): string {
  return encodeResults(decodeInputs(batch).map(scoreTrade));
}

// Each thread answers the pool's start check (src/threads/thread-start.ts).
export { arrive } from '../src/threads/arrive.js';
