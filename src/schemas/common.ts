// Building blocks shared by every resource schema.
import { Type } from '@sinclair/typebox';
import { INPUT_LIMITS } from '../catalogue/published-facts.js';

export const ADDRESS_PATTERN = '^0x[a-fA-F0-9]{40}$';

/** An EVM address as the spec writes it: exactly 42 characters, 0x and 40 hex digits. */
export const Address = Type.String({ pattern: ADDRESS_PATTERN, minLength: 42, maxLength: 42 });

export const Decision = Type.Union([Type.Literal('allow'), Type.Literal('warn'), Type.Literal('deny')]);

export const PriceSource = Type.Union([
  Type.Literal('oracle'),
  Type.Literal('venue_v4'),
  Type.Literal('fallback_default'),
  Type.Literal('unavailable'),
]);

export const Tier = Type.Integer({ minimum: 1, maximum: 3 });

/** Any JSON object, for the spec's "open object" fields. */
export const OpenObject = Type.Object({}, { additionalProperties: true });

/** Largest token quantity the service takes (catalogue INPUT_LIMITS). */
export const MAX_TOKEN_UNITS = INPUT_LIMITS.maxTokenUnits;

/** A trade quantity: positive, finite, at most MAX_TOKEN_UNITS. */
export const TokenAmount = Type.Number({ exclusiveMinimum: 0, maximum: MAX_TOKEN_UNITS });

/** A signed balance change: negative spends; |delta| at most MAX_TOKEN_UNITS. */
export const TokenDelta = Type.Number({ minimum: -MAX_TOKEN_UNITS, maximum: MAX_TOKEN_UNITS });
