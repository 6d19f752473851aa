// The service compiles its schemas without checking them against the JSON Schema meta-schema, and each
// on its first use (src/schemas/validator.ts): here every one of them is checked and compiled once, so a
// malformed schema fails this test rather than a route's first request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { ConfigSchema } from '../../../src/config.js';
import { CHECK_OPTIONS, FILL_OPTIONS, validatedSchemas } from '../../../src/schemas/validator.js';

// The assembly imports every channel, and with them every validator the service makes; the MCP channel,
// which it loads on the endpoint's first request, is imported here too.
await import('../../../src/assembly/app.js');
await import('../../../src/channels/mcp/channel.js');

function described(schema: TSchema, index: number): string {
  return `${index}: ${schema.$id ?? schema.title ?? Object.keys(schema.properties ?? {}).join(',')}`;
}

describe('the schemas the service validates with', () => {
  const schemas = [...validatedSchemas(), ConfigSchema];

  it('are all known to the test: every route, tool and file the service checks', () => {
    // 22 call sites; the MCP tools add one each. Fewer means a channel's validators were not reached.
    assert.ok(validatedSchemas().length >= 25, `only ${validatedSchemas().length} schemas were given to compileValidator`);
  });

  it('each conform to the JSON Schema meta-schema', () => {
    const checker = new Ajv({ strict: false });
    for (const [index, schema] of schemas.entries()) {
      assert.equal(checker.validateSchema(schema), true, `${described(schema, index)}: ${checker.errorsText(checker.errors)}`);
    }
  });

  it('each compile, with the options the service compiles them with (the configuration\'s compiles in every start)', () => {
    const strictTypes = new Ajv(CHECK_OPTIONS);
    const withDefaults = new Ajv(FILL_OPTIONS);
    for (const [index, schema] of validatedSchemas().entries()) {
      assert.doesNotThrow(() => strictTypes.compile(schema), described(schema, index));
      assert.doesNotThrow(() => withDefaults.compile(schema), described(schema, index));
    }
  });

  it('a malformed schema is caught by the meta-schema check', () => {
    // The check above can fail: a type no JSON Schema knows is refused.
    const checker = new Ajv({ strict: false });
    assert.equal(checker.validateSchema({ type: 'decimal' }), false);
  });
});
