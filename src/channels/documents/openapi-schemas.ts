// The TypeBox schemas the routes validate with, as OpenAPI 3.1 components: plain JSON Schema, shared ones by $ref.
import type { TSchema } from '@sinclair/typebox';
import { Address } from '../../schemas/common.js';
import { ErrorBody, ErrorCode } from '../../schemas/errors.js';
import { DecisionsReport, FeedReport, Health, LatencyReport, ServiceInfo, ServiceStatus } from '../../schemas/operations.js';
import {
  AssetInfo, AuditGlobalResponse, AuditVerifyGlobalResponse, AuditVerifyResponse, AuditWalletResponse, HTTPValidationError,
  NonceResponse, PaymentReceipt, PaymentRequirementsV1, PaymentRequirementsV2, PolicyConfig, RevokeResponse, SimulateBalanceRequest,
  SimulateBalanceResponse, TokenSafety, TokenSafetyRequest, UpdateConfigRequest, ValidationErrorItem, WalletLoginRequest,
  WalletLoginResponse, X402Challenge, X402PaymentRequired,
} from '../../schemas/resources.js';
import { FleetDelegationRequest, FleetDelegationResponse, FleetEndResponse, FleetListing } from '../../schemas/fleet.js';
import { ErrorVerdict, TradePermit, TradeRequest, Verdict } from '../../schemas/trade.js';
import { PermitSigner } from '../../schemas/permits.js';
import { AuditKey, Checkpoint, ConsistencyProof, InclusionProof } from '../../schemas/audit-proofs.js';

export type JsonObject = Record<string, unknown>;

/** Every schema that gets a name under `components.schemas`; the key is the name. */
export const COMPONENT_SCHEMAS = {
  Address,
  TradeRequest,
  Verdict,
  ErrorVerdict,
  ValidationError: ValidationErrorItem,
  HTTPValidationError,
  ErrorCode,
  ErrorBody,
  PaymentRequirementsV1,
  X402Challenge,
  PaymentRequirementsV2,
  X402PaymentRequired,
  PaymentReceipt,
  AssetInfo,
  PolicyConfig,
  UpdateConfigRequest,
  FleetDelegationRequest,
  FleetDelegationResponse,
  FleetEndResponse,
  FleetListing,
  NonceResponse,
  WalletLoginRequest,
  WalletLoginResponse,
  RevokeResponse,
  SimulateBalanceRequest,
  SimulateBalanceResponse,
  TokenSafetyRequest,
  TokenSafety,
  AuditWalletResponse,
  Checkpoint,
  InclusionProof,
  ConsistencyProof,
  AuditKey,
  TradePermit,
  PermitSigner,
  AuditGlobalResponse,
  AuditVerifyResponse,
  AuditVerifyGlobalResponse,
  ServiceInfo,
  Health,
  ServiceStatus,
  LatencyReport,
  DecisionsReport,
  FeedReport,
} as const satisfies Record<string, TSchema>;

export type SchemaName = keyof typeof COMPONENT_SCHEMAS;

export function schemaRef(name: SchemaName): JsonObject {
  return { $ref: `#/components/schemas/${name}` };
}

// TypeBox composes schemas by reference, so a named schema met inside another is the same object.
const NAMES = new Map<object, SchemaName>(
  Object.entries(COMPONENT_SCHEMAS).map(([name, schema]) => [schema, name as SchemaName]),
);

/** `components.schemas`: each named schema with the named schemas inside it replaced by $refs. */
export function componentSchemas(): JsonObject {
  return Object.fromEntries(Object.entries(COMPONENT_SCHEMAS).map(([name, schema]) => [name, plainSchema(schema, schema)]));
}

/** A schema used in place (a parameter's, an inline body's): named schemas inside it become $refs, it included. */
export function inlineSchema(schema: TSchema): JsonObject {
  return plainSchema(schema, null);
}

/**
 * Plain JSON: TypeBox's symbol-keyed metadata is dropped (as a JSON round trip drops it), and so
 * is `$id`, which inside an OpenAPI document would change the base URI that $refs resolve against.
 */
function plainSchema(schema: TSchema, root: TSchema | null): JsonObject {
  const walk = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const name = NAMES.get(value);
    if (name !== undefined && value !== root) return schemaRef(name);
    if (Array.isArray(value)) return value.map(walk);
    const entries = Object.entries(value).filter(([key]) => key !== '$id');
    return Object.fromEntries(entries.map(([key, child]) => [key, walk(child)]));
  };
  return JSON.parse(JSON.stringify(walk(schema))) as JsonObject;
}
