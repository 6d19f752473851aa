// The labelled corpus (contracts/corpus/labels.json) deployed on the devnet: every token judged through POST /api/v1/token-safety as labelled.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { corpusLabels, deployCorpus, type CorpusToken } from '../../../../src/tools/devnet/deploy-corpus.js';
import { TokenSafety } from '../../../../src/schemas/resources.js';
import { compileValidator } from '../../../../src/schemas/validator.js';
import { postJson, startTestService, type TestService } from '../../../support/service.js';

const labels = corpusLabels();
let running: TestService;
let deployed: Map<string, CorpusToken>;

before(async () => {
  // What this file asks is each token's label, not how fast a loaded machine's anvil simulates it: a read that once stalled
  // past the 2 s default under a full suite made a label a 503. Hung nodes and their bound: chain-fail-closed.test.ts.
  running = await startTestService({ REGISTRY_FILE: '', RATE_LIMIT_IP_TOKEN_SAFETY: '1000', RPC_TIMEOUT_MS: '20000' });
  deployed = new Map((await deployCorpus(running.service.chain.devnet!)).map((token) => [token.id, token]));
});
after(() => running.stop());

const conforms = compileValidator(TokenSafety, 'body');
/** The stable code of each risk factor that is not advisory. */
const codes = (factors: string[]) => factors.filter((f) => !f.startsWith('ADVISORY:')).map((factor) => /^[A-Z_0-9]+/.exec(factor)![0]);

describe('the corpus', () => {
  it('holds at least 40 token contracts of its own, each labelled with a severity and, unless safe, a reason', () => {
    assert.ok(labels.filter((label) => !label.registry).length >= 40);
    for (const label of labels) assert.equal(label.reason === null, label.severity === 'safe', label.id);
  });
});

describe('every corpus token is judged as labelled', () => {
  for (const label of labels) {
    it(`${label.id}: ${label.severity}${label.reason ? ` (${label.reason})` : ''}: ${label.why}`, async () => {
      const token = deployed.get(label.id)!;
      const { status, json } = await postJson(`${running.base}/api/v1/token-safety`, { contract_address: token.address });
      assert.equal(status, 200);
      assert.equal(conforms(json).ok, true, 'the TokenSafety shape');
      const seen = `${json.severity}: ${json.risk_factors.join(' | ')}`;
      assert.equal(json.severity, label.severity, seen);
      if (label.reason) assert.ok(codes(json.risk_factors).includes(label.reason), seen);
      // Every factor listed once, and none that a wrong reading once gave it (ARCHITECTURE.md "Token safety").
      const listed = codes(json.risk_factors);
      assert.deepEqual(listed, [...new Set(listed)], seen);
      for (const code of label.absent ?? []) assert.ok(!listed.includes(code), seen);
      assert.equal(json.is_honeypot, label.reason === 'HONEYPOT', seen);
    });
  }
});
