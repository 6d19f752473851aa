// The official asset registry: symbol <-> canonical contract, decimals, feed, default price.
import { readFile } from 'node:fs/promises';
import { Type, type Static } from '@sinclair/typebox';
import { Address } from '../schemas/common.js';
import { compileValidator } from '../schemas/validator.js';

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

export const RegistryFileSchema = Type.Object({
  chain_id: Type.Integer(),
  assets: Type.Array(RegistryAssetSchema, { minItems: 1, maxItems: 10_000 }),
  /** The service token whose holdings set the REST tier. */
  service_token: Type.Optional(TokenRef),
  /** The 6-decimal EIP-3009 stablecoin x402 payments settle in. */
  settlement_asset: Type.Optional(TokenRef),
});
export type TokenRef = Static<typeof TokenRef>;
export type RegistryFile = Static<typeof RegistryFileSchema>;

const validateFile = compileValidator(RegistryFileSchema, 'body');

/** Lookups are case-insensitive on symbols and addresses. */
export class Registry {
  private readonly symbols = new Map<string, RegistryAsset>();
  private readonly addresses = new Map<string, RegistryAsset>();

  constructor(
    readonly chainId: number,
    readonly assets: readonly RegistryAsset[],
    readonly serviceToken: TokenRef | null = null,
    readonly settlementAsset: TokenRef | null = null,
  ) {
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
  return new Registry(file.chain_id, file.assets, file.service_token ?? null, file.settlement_asset ?? null);
}
