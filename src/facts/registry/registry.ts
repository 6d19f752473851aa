// The official asset registry: symbol <-> canonical contract, decimals, feed, default price.
import { readFile } from 'node:fs/promises';
import { Type, type Static } from '@sinclair/typebox';
import { Address } from '../../schemas/common.js';
import { compileValidator } from '../../schemas/validator.js';
import type { RegistryFact } from '../../risk/types.js';

export const RegistryAssetSchema = Type.Object({
  symbol: Type.String({ minLength: 1, maxLength: 32 }),
  contract_address: Address,
  decimals: Type.Integer({ minimum: 0, maximum: 36 }),
  is_native: Type.Boolean(),
  /** Chainlink-style aggregator for the asset, or null when it has none. */
  price_feed: Type.Union([Address, Type.Null()]),
  /** The built-in default price (source `fallback_default`), or null for none. */
  default_price_usd: Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Null()]),
});
export type RegistryAsset = Static<typeof RegistryAssetSchema>;

const TokenRef = Type.Object({ address: Address, decimals: Type.Integer({ minimum: 0, maximum: 36 }) });

/**
 * The v4 venue the service prices against and sells through in token-safety checks: every
 * asset's pool is (asset, quote_token, fee, tick_spacing, hooks).
 */
export const VenueSchema = Type.Object({
  state_view: Address,
  pool_manager: Address,
  /** The USD stablecoin pools quote in; valued at 1 USD. */
  quote_token: TokenRef,
  fee: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  tick_spacing: Type.Integer({ minimum: 1, maximum: 32_767 }),
  hooks: Type.Optional(Address),
  /** Where SwapHelper's runtime code is deployed on this chain; absent: compiled from contracts/. */
  swap_helper: Type.Optional(Address),
});
export type VenueConfig = Static<typeof VenueSchema>;
/** A venue with its defaults filled in. */
export type Venue = Readonly<VenueConfig & { hooks: string }>;

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
/** Multicall3's canonical address (the same on every chain that has it). */
export const MULTICALL3_CANONICAL = '0xcA11bde05977b3631167028862bE2a173976CA11';
/** Oracle rounds older than this are stale unless the file says otherwise. */
export const DEFAULT_ORACLE_MAX_AGE_SECONDS = 3_600;

export const RegistryFileSchema = Type.Object({
  chain_id: Type.Integer(),
  assets: Type.Array(RegistryAssetSchema, { minItems: 1, maxItems: 10_000 }),
  /** The service token whose holdings set the REST tier. */
  service_token: Type.Optional(TokenRef),
  /** The 6-decimal EIP-3009 stablecoin x402 payments settle in. */
  settlement_asset: Type.Optional(TokenRef),
  /** The v4 venue for `venue_v4` prices and token-safety sell simulations; absent: no venue. */
  venue: Type.Optional(VenueSchema),
  /** Multicall3 on this chain; default the canonical address. */
  multicall3: Type.Optional(Address),
  /** Oracle staleness limit in seconds (default 3600). */
  oracle_max_age_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 * 86_400 })),
});
export type TokenRef = Static<typeof TokenRef>;
export type RegistryFile = Static<typeof RegistryFileSchema>;

const validateFile = compileValidator(RegistryFileSchema, 'body');

/** Chain-level settings of a registry file beyond its assets. */
export interface RegistryChainOptions {
  venue?: VenueConfig | null;
  multicall3?: string;
  oracleMaxAgeSeconds?: number;
}

/**
 * What the service says of an asset, stated once: the entry every channel lists (REST AssetInfo,
 * MCP get_supported_assets, A2A asset-registry) and the registry fact the engine scores.
 */
export function assetFact(asset: RegistryAsset): RegistryFact {
  let fact = ASSET_FACTS.get(asset);
  if (fact === undefined) {
    fact = Object.freeze({ symbol: asset.symbol, contract_address: asset.contract_address, is_native: asset.is_native, decimals: asset.decimals });
    ASSET_FACTS.set(asset, fact);
  }
  return fact;
}

/** One frozen fact per registry asset: the same object in every evaluation, its recorded text written once. */
const ASSET_FACTS = new WeakMap<RegistryAsset, RegistryFact>();

/** Lookups are case-insensitive on symbols and addresses. */
export class Registry {
  private readonly symbols = new Map<string, RegistryAsset>();
  private readonly addresses = new Map<string, RegistryAsset>();
  readonly venue: Venue | null;
  readonly multicall3: string;
  readonly oracleMaxAgeSeconds: number;
  /** Every asset as the channels list it (assetFact); the registry is fixed for the life of the process. */
  readonly listing: readonly RegistryFact[];

  constructor(
    readonly chainId: number,
    readonly assets: readonly RegistryAsset[],
    readonly serviceToken: TokenRef | null = null,
    readonly settlementAsset: TokenRef | null = null,
    options: RegistryChainOptions = {},
  ) {
    this.venue = options.venue ? Object.freeze({ ...options.venue, hooks: options.venue.hooks ?? ZERO_ADDRESS }) : null;
    this.multicall3 = options.multicall3 ?? MULTICALL3_CANONICAL;
    this.oracleMaxAgeSeconds = options.oracleMaxAgeSeconds ?? DEFAULT_ORACLE_MAX_AGE_SECONDS;
    this.listing = Object.freeze(assets.map(assetFact));
    for (const asset of assets) {
      const symbol = asset.symbol.toUpperCase();
      const address = asset.contract_address.toLowerCase();
      if (this.symbols.has(symbol)) throw new Error(`registry lists symbol ${asset.symbol} twice`);
      if (this.addresses.has(address)) throw new Error(`registry lists address ${asset.contract_address} twice`);
      this.symbols.set(symbol, asset);
      this.addresses.set(address, asset);
    }
  }

  bySymbol(symbol: string): RegistryAsset | null {
    return this.symbols.get(symbol.toUpperCase()) ?? null;
  }

  byAddress(address: string): RegistryAsset | null {
    return this.addresses.get(address.toLowerCase()) ?? null;
  }

  /** True for the registry's own contracts: listed assets, the service token and the settlement asset. */
  lists(address: string): boolean {
    const lower = address.toLowerCase();
    return (
      this.addresses.has(lower) ||
      this.serviceToken?.address.toLowerCase() === lower ||
      this.settlementAsset?.address.toLowerCase() === lower
    );
  }
}

/** Reads and checks a registry file; every problem names the file and the field. */
export async function loadRegistryFile(path: string): Promise<Registry> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new Error(`REGISTRY_FILE ${path}: ${(error as Error).message}`);
  }
  const checked = validateFile(parsed);
  if (!checked.ok) {
    const lines = checked.detail.map((issue) => `${issue.loc.slice(1).join('.')}: ${issue.msg}`);
    throw new Error(`REGISTRY_FILE ${path} is invalid:\n  ${lines.join('\n  ')}`);
  }
  return registryFromFile(checked.value);
}

export function registryFromFile(file: RegistryFile): Registry {
  return new Registry(file.chain_id, file.assets, file.service_token ?? null, file.settlement_asset ?? null, {
    venue: file.venue ?? null,
    multicall3: file.multicall3,
    oracleMaxAgeSeconds: file.oracle_max_age_seconds,
  });
}
