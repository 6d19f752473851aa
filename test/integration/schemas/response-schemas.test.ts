// Live bodies against the spec's resource schemas: the right fields, the right types, nothing undeclared.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AssetInfo, HTTPValidationError, NonceResponse, PolicyConfig, RevokeResponse, WalletLoginResponse } from '../../../src/schemas/resources.js';
import { ServiceInfo } from '../../../src/schemas/operations.js';
import { PATHS } from '../../../src/catalogue/published-facts.js';
import { PermitSigner } from '../../../src/schemas/permits.js';
import { Verdict } from '../../../src/schemas/trade.js';
import { assertConforms } from '../../support/conforms.js';
import { assertDocumented } from '../../support/documented.js';
import { getJson, postJson, sampleTrade, send, startTestService, type TestService } from '../../support/service.js';

let running: TestService;

before(async () => {
  // A guard address so a permit may be asked for; nothing here touches a chain.
  running = await startTestService({ PERMIT_GUARD_ADDRESS: '0x00000000000000000000000000000000000000ee' });
});
after(() => running.stop());

describe('response bodies', () => {
  it('AssetInfo for every registry entry', async () => {
    const assets = (await getJson(`${running.base}/api/v1/assets`)).json as unknown[];
    assert.ok(assets.length > 0);
    for (const asset of assets) assertConforms(AssetInfo, asset);
  });

  it('NonceResponse, WalletLoginResponse, PolicyConfig and RevokeResponse along the sign-in flow', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const nonce = await getJson(`${running.base}/api/v1/auth/nonce?address=${signer.address}`);
    assertConforms(NonceResponse, nonce.json);
    const signature = await signer.signMessage({ message: nonce.json.message });
    const login = await postJson(`${running.base}/api/v1/auth/wallet`, { address: signer.address, signature });
    assertConforms(WalletLoginResponse, login.json);
    const bearer = { authorization: `Bearer ${login.json.access_token}` };
    assertConforms(PolicyConfig, (await getJson(`${running.base}/api/v1/config`, bearer)).json);
    assertConforms(PolicyConfig, (await postJson(`${running.base}/api/v1/config`, { blocked_assets: ['tsla'] }, bearer)).json);
    assertConforms(RevokeResponse, (await send('POST', `${running.base}/api/v1/auth/revoke`, undefined, bearer)).json);
    assertConforms(RevokeResponse, (await send('POST', `${running.base}/api/v1/auth/revoke`)).json);
  });

  it('Verdict for an evaluation, and HTTPValidationError (with its code) for a bad one', async () => {
    const verdict = await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade());
    assert.equal(verdict.status, 200);
    assertConforms(Verdict, verdict.json);
    const invalid = await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ side: 'hold' }));
    assert.equal(invalid.status, 422);
    assertConforms(HTTPValidationError, invalid.json, ['code']);
  });

  it('Verdict with counterfactuals (a deny) and for a permit request; the permit signer and the root document', async () => {
    const deny = await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ amount: 10 }));
    assert.equal(deny.json.decision, 'deny');
    assert.ok('max_allowed_amount' in deny.json && 'tier_needed' in deny.json);
    assertConforms(Verdict, deny.json);
    // Offline every price is a built-in default, on which no permit is signed (an allow with one: permits-devnet.test.ts).
    const refused = await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ amount: 1, permit: true }));
    assert.equal(refused.json.decision, 'deny');
    assert.ok(refused.json.reasons.some((text: string) => text.startsWith('PERMIT_ON_FLAGGED_PRICE: ')), refused.text);
    assertConforms(Verdict, refused.json);
    assertConforms(PermitSigner, (await getJson(`${running.base}/.well-known/permit-signer.json`)).json);
    assertConforms(ServiceInfo, (await getJson(`${running.base}/`)).json);
  });

  it('every error the operator route, the body check and the evaluation answer matches /openapi.json at its status', async () => {
    const document = (await getJson(`${running.base}${PATHS.openapi}`)).json;
    // No ADMIN_TOKEN here: /debug/feeds is disabled, a 403 the document must declare.
    const disabled = await getJson(`${running.base}${PATHS.debugFeeds}`);
    assert.equal(disabled.json.code, 'admin_disabled');
    assertDocumented(document, PATHS.debugFeeds, 'get', disabled.status, disabled.json);
    const text = await send('POST', `${running.base}${PATHS.analyzeFree}`, JSON.stringify(sampleTrade()), { 'content-type': 'text/plain' });
    assert.equal(text.status, 415);
    assertDocumented(document, PATHS.analyzeFree, 'post', text.status, text.json);
    const invalid = await postJson(`${running.base}${PATHS.analyzeFree}`, sampleTrade({ side: 'hold' }));
    assertDocumented(document, PATHS.analyzeFree, 'post', invalid.status, invalid.json);
    const verdict = await postJson(`${running.base}${PATHS.analyzeFree}`, sampleTrade());
    assertDocumented(document, PATHS.analyzeFree, 'post', verdict.status, verdict.json);
    assertDocumented(document, PATHS.root, 'get', 200, (await getJson(`${running.base}/`)).json);
  });
});
