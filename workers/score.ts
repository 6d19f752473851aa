// Piscina task module: scores a micro-batch of trades with the pure risk engine.
import { evaluateRisk } from '../src/risk/evaluate-risk.js';
import type { RiskInput, RiskResult } from '../src/risk/types.js';

// Piscina calls the module's default export; inputs and results are plain, clonable values.
export default function scoreBatch(inputs: RiskInput[]): RiskResult[] {
  return inputs.map(evaluateRisk);
}
