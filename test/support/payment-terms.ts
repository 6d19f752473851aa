// Payment terms as the paid channel builds them at start, for unit tests that have no devnet.
import { PATHS } from '../../src/catalogue/published-facts.js';
import type { PaymentTerms } from '../../src/evaluation/paid/terms.js';

/** The devnet's stablecoin and treasury addresses, the resource on `base`. */
export function sampleTerms(base: string): PaymentTerms {
  return {
    network: 'eip155:4663',
    asset: '0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9',
    amount: '100000',
    payTo: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
    resource: `${base}${PATHS.x402Analyze}`,
    maxTimeoutSeconds: 300,
    eip712: { name: 'USD Coin', version: '2' },
  };
}
