// Where permits are enforced: PERMIT_GUARD_ADDRESS, else the embedded devnet's guard; without either none are issued.
import type { Address } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { PublishedPermits } from '../channels/rest/permit-signer.js';
import type { ChainContext } from './attach-chain.js';
import type { Config } from '../config.js';

export function permitsFor(config: Readonly<Config>, chain: ChainContext, signer: PrivateKeyAccount): PublishedPermits {
  const guard = (config.permits.guard ?? chain.devnet?.contracts.permitGuard ?? null) as Address | null;
  const chainId = chain.registry.chainId;
  const ttlSeconds = config.permits.ttlSeconds;
  return { signer: signer.address, chainId, ttlSeconds, settings: guard ? { signer, chainId, guard, ttlSeconds } : null };
}
