// The service compiles its schemas without checking them against the JSON Schema meta-schema, and each
// on its first use (src/schemas/validator.ts): here every one of them is checked and compiled once, so a
// malformed schema fails this test rather than a route's first request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { ConfigSchema } from '../../../src/config.js';
import { CHECK_OPTIONS, defaultsFiller, FILL_OPTIONS, UTF16_CHECK_OPTIONS, validatedSchemas } from '../../../src/schemas/validator.js';

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
    const utf16 = new Ajv(UTF16_CHECK_OPTIONS);
    const withDefaults = new Ajv(FILL_OPTIONS);
    for (const [index, schema] of validatedSchemas().entries()) {
      assert.doesNotThrow(() => strictTypes.compile(schema), described(schema, index));
      assert.doesNotThrow(() => utf16.compile(schema), described(schema, index));
      assert.doesNotThrow(() => withDefaults.compile(schema), described(schema, index));
    }
  });

  it('get their defaults filled as Ajv\'s useDefaults fills them, present members left as they are', () => {
    const withDefaults = new Ajv(FILL_OPTIONS);
    let filledSome = 0;
    for (const [index, schema] of validatedSchemas().entries()) {
      if (schema.type !== 'object') continue;
      const ajvFill = withDefaults.compile(schema);
      const fill = defaultsFiller(schema);
      const names = Object.keys(schema.properties ?? {});
      // Nothing given; every member given (a value no default equals); every other member given.
      const inputs = [{}, Object.fromEntries(names.map((name) => [name, 'given'])), Object.fromEntries(names.filter((_, i) => i % 2 === 0).map((name) => [name, 7]))];
      for (const input of inputs) {
        const expected = structuredClone(input);
        ajvFill(expected);
        const actual = structuredClone(input);
        fill(actual);
        // Compared as JSON text: the members' order too.
        assert.equal(JSON.stringify(actual), JSON.stringify(expected), `${described(schema, index)} from ${JSON.stringify(input)}`);
        if (Object.keys(expected).length > Object.keys(input).length) filledSome++;
      }
    }
    // The comparison above can fail: some schema has defaults to fill (the trade's three).
    assert.ok(filledSome > 0);
  });

  it('a malformed schema is caught by the meta-schema check', () => {
    // The check above can fail: a type no JSON Schema knows is refused.
    const checker = new Ajv({ strict: false });
    assert.equal(checker.validateSchema({ type: 'decimal' }), false);
  });
});
