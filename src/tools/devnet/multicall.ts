// Places Multicall3 at its canonical address, where viem's robinhood chain definition expects it.
import type { Address, Hex } from 'viem';
import type { TestClient } from 'viem';

export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

/**
 * Real chains get Multicall3 from a keyless pre-signed deployment that cannot be replayed
 * with chain id 4663 here, so the compiled runtime code is set at the address directly.
 */
export async function installMulticall3(client: TestClient, deployedBytecode: Hex): Promise<Address> {
  await client.setCode({ address: MULTICALL3_ADDRESS, bytecode: deployedBytecode });
  return MULTICALL3_ADDRESS;
}
