// GET /.well-known/permit-signer.json: the address that signs trade permits, the guard and the EIP-712 domain.
import { PATHS } from '../../catalogue/published-facts.js';
import { json } from '../../http/responses.js';
import type { Route } from '../../http/types.js';
import type { PermitSettings } from '../../evaluation/permits/trade-permit.js';
import { PERMIT_DOMAIN, TRADE_PERMIT_TYPES } from '../../evaluation/permits/trade-permit.js';
import type { PermitSigner } from '../../schemas/permits.js';

export interface PublishedPermits {
  signer: string;
  chainId: number;
  /** Null when no guard is configured: the service then issues no permits. */
  settings: PermitSettings | null;
  ttlSeconds: number;
}

export function permitSignerDocument(published: PublishedPermits): PermitSigner {
  return {
    address: published.signer,
    chain_id: published.chainId,
    guard: published.settings?.guard ?? null,
    domain: { ...PERMIT_DOMAIN },
    primary_type: 'TradePermit',
    types: TRADE_PERMIT_TYPES as unknown as Record<string, unknown>,
    ttl_seconds: published.ttlSeconds,
  };
}

export function permitSignerRoutes(published: PublishedPermits): Route[] {
  const body = permitSignerDocument(published);
  return [{ method: 'get', pattern: PATHS.permitSigner, handler: () => json(200, body, { 'cache-control': 'public, max-age=300' }) }];
}
