// The compact wire form to the scoring threads keeps every field the engine reads and writes.
import { deepStrictEqual, equal } from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import { decodeInputs, decodeResults, encodeInputs, encodeResults } from '../../../src/risk/wire.js';
import { riskInput } from '../../support/risk-arbitraries.js';
import { makeInput } from '../../support/risk-fixtures.js';

/** What plain JSON keeps of a value (NaN and infinities become null): the wire promises no more. */
const viaJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('risk wire form', () => {
  it('decodes every input field as JSON would carry it', () => {
    fc.assert(
      fc.property(fc.array(riskInput, { maxLength: 8 }), (inputs) => {
        deepStrictEqual(decodeInputs(encodeInputs(inputs)), viaJson(inputs));
      }),
      { numRuns: 500 },
    );
  });

  it('decodes every result field', () => {
    fc.assert(
      fc.property(fc.array(riskInput, { maxLength: 8 }), (inputs) => {
        const results = inputs.map(evaluateRisk);
        deepStrictEqual(decodeResults(encodeResults(results)), viaJson(results));
      }),
      { numRuns: 300 },
    );
  });

  it('sends one registry entry once when symbol and address name the same asset', () => {
    const input = makeInput();
    equal(input.registryByAddress, input.registryBySymbol);
    const [decoded] = decodeInputs(encodeInputs([input]));
    equal(decoded.registryByAddress, decoded.registryBySymbol);
    equal(encodeInputs([input]).split(input.registryBySymbol!.contract_address).length - 1, 2, 'trade address + one registry copy');
  });
});
