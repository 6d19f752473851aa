// The privileged functions token-safety looks for, by capability, as 4-byte selectors.
import { toFunctionSelector } from 'viem';

export type Capability = 'mint' | 'blacklist' | 'pause' | 'feeSetter' | 'upgrade';

/** Signatures seen in deployed tokens; a hit means the code dispatches on that selector. */
const SIGNATURES: Readonly<Record<Capability, readonly string[]>> = {
  mint: [
    'mint(address,uint256)', 'mint(uint256)', 'mintTo(address,uint256)', 'mintBatch(address[],uint256[])',
    'issue(uint256)', 'mint(address,uint256,bytes)',
  ],
  blacklist: [
    'blacklist(address)', 'unBlacklist(address)', 'addBlackList(address)', 'addToBlacklist(address)',
    'setBlacklist(address,bool)', 'isBlacklisted(address)', 'isBlackListed(address)', 'freeze(address)',
    'freezeAccount(address,bool)', 'setBlacklisted(address,bool)', 'blockAccount(address)',
  ],
  pause: ['pause()', 'unpause()', 'setPaused(bool)', 'pauseTransfers()'],
  feeSetter: [
    'setFee(uint256)', 'setFees(uint256,uint256)', 'setTaxFee(uint256)', 'setTaxFeePercent(uint256)',
    'setSellFee(uint256)', 'setBuyFee(uint256)', 'setSellTax(uint256)', 'setBuyTax(uint256)', 'setTax(uint256)',
    'setTransferFee(uint256)', 'updateFees(uint256,uint256)', 'setFeeExempt(address,bool)', 'excludeFromFee(address)',
    'setExcludeFromFee(address,bool)', 'setIsFeeExempt(address,bool)',
  ],
  upgrade: ['upgradeTo(address)', 'upgradeToAndCall(address,bytes)'],
};

export interface SelectorInfo {
  capability: Capability;
  signature: string;
}

/** Selector (0x-prefixed, lower case) to its capability and human signature. */
export const PRIVILEGED_SELECTORS: ReadonlyMap<string, SelectorInfo> = new Map(
  (Object.entries(SIGNATURES) as [Capability, readonly string[]][]).flatMap(([capability, signatures]) =>
    signatures.map((signature) => [toFunctionSelector(`function ${signature}`), { capability, signature }] as const),
  ),
);

/** The privileged functions among `selectors`, grouped by capability, signatures sorted. */
export function capabilitiesOf(selectors: ReadonlySet<string>): Map<Capability, string[]> {
  const found = new Map<Capability, string[]>();
  for (const selector of selectors) {
    const info = PRIVILEGED_SELECTORS.get(selector);
    if (!info) continue;
    found.set(info.capability, [...(found.get(info.capability) ?? []), info.signature].sort());
  }
  return found;
}
