// What a signed-in wallet is entitled to: its tier from service-token holdings, and preview tiers.
import type { HoldingsReader } from '../facts/chain/holdings.js';
import type { ValidationIssue } from '../schemas/validator.js';
import { isPreviewHolder, tierForHoldings } from '../risk/tiers.js';
import type { Tier } from '../risk/types.js';

export interface Entitlement {
  /** The tier the wallet's holdings grant. */
  entitled: Tier;
  /** The tier to evaluate at: the entitlement, or the `x-preview-tier` asked for. */
  effective: Tier;
  previewMode: boolean;
  /** The service-token holdings read; null without a chain to read them from. */
  holdings: number | null;
}

/**
 * Without a holdings reader (no chain attached) every wallet is a Tier 1 preview
 * holder: the lowest tier is the one nobody has to prove.
 */
export async function entitlementOf(holdings: HoldingsReader | null, wallet: string, preview: Tier | null): Promise<Entitlement> {
  const tokens = holdings ? await holdings.holdings(wallet) : 0;
  const entitled = tierForHoldings(tokens);
  return { entitled, effective: preview ?? entitled, previewMode: isPreviewHolder(tokens), holdings: holdings ? tokens : null };
}

/** The values `x-preview-tier` may take, as the OpenAPI document lists them. */
export const PREVIEW_TIER_VALUES: readonly string[] = ['1', '2', '3'];

/** `x-preview-tier`: absent, or exactly 1, 2 or 3. */
export function previewTier(header: string | undefined): { ok: true; tier: Tier | null } | { ok: false; issue: ValidationIssue } {
  if (header === undefined || header === '') return { ok: true, tier: null };
  if (PREVIEW_TIER_VALUES.includes(header)) return { ok: true, tier: Number(header) as Tier };
  return {
    ok: false,
    issue: {
      loc: ['header', 'x-preview-tier'],
      msg: "Input should be 1, 2 or 3",
      type: 'literal_error',
      input: header,
      ctx: { expected: '1, 2 or 3' },
    },
  };
}
