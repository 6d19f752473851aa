// Piscina task module: scores a micro-batch of trades with the pure risk engine.
import { evaluateRisk } from '../src/risk/evaluate-risk.js';
import type { RiskInput, RiskResult } from '../src/risk/types.js';

// Piscina calls the module's default export with a JSON array of inputs; it answers in JSON too.
export default function scoreBatch(inputs: string): string {
  return JSON.stringify((JSON.parse(inputs) as RiskInput[]).map(evaluateRisk) satisfies RiskResult[]);
}
