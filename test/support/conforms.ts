// Holds a live response body to a published resource schema: the right fields, the right types, nothing undeclared.
import assert from 'node:assert/strict';
import type { TObject, TSchema } from '@sinclair/typebox';
import { compileValidator } from '../../src/schemas/validator.js';

/** The body passes the schema, has every required field, and nothing undeclared (but `extra`, which the service adds). */
export function assertConforms(schema: TObject, body: unknown, extra: string[] = []): void {
  const checked = compileValidator(schema as TSchema, 'body')(structuredClone(body));
  assert.ok(checked.ok, JSON.stringify(checked.ok ? null : checked.detail));
  const keys = Object.keys(body as object);
  const declared = new Set([...Object.keys(schema.properties), ...extra]);
  assert.deepEqual(keys.filter((key) => !declared.has(key)), [], 'undeclared fields');
  assert.deepEqual((schema.required ?? []).filter((key) => !keys.includes(key)), [], 'missing required fields');
}
