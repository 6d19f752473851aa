// Trade permits as signed: the EIP-712 digest recovers to the signer, and the amount is never rounded up.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recoverTypedDataAddress, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { signTradePermit, TRADE_PERMIT_TYPES, type AllowedTrade } from '../../../../src/evaluation/permits/trade-permit.js';

const signer = privateKeyToAccount(generatePrivateKey());
const settings = { signer, chainId: 4663, guard: '0x00000000000000000000000000000000000000ee' as Address, ttlSeconds: 120 };
const trade: AllowedTrade = {
  wallet: '0x1111111111111111111111111111111111111111',
  token: '0xa6f91334bed73452616829fac9fa646b4b2b76e0',
  side: 'sell',
  amount: 1.5,
  decimals: 18,
  notionalUsd: 525.38,
  auditSeq: 7,
  auditHash: 'ab'.repeat(32),
  nowMs: Date.UTC(2026, 0, 6, 15, 0, 0),
};

describe('signTradePermit', () => {
  it('signs the fields the guard checks, recoverable to the published signer', async () => {
    const permit = await signTradePermit(settings, trade);
    assert.deepEqual({ ...permit.message, nonce: '' }, {
      wallet: trade.wallet, token: trade.token, side: 1, maxAmount: '1500000000000000000', maxNotionalUsdCents: '52538',
      expiry: trade.nowMs / 1000 + 120, auditSeq: 7, auditHash: `0x${'ab'.repeat(32)}`, nonce: '',
    });
    assert.deepEqual(permit.domain, { name: 'TradePermitGuard', version: '1', chainId: 4663, verifyingContract: settings.guard });
    const m = permit.message;
    const message = {
      ...m, wallet: m.wallet as Address, token: m.token as Address, auditHash: m.auditHash as Hex, maxAmount: BigInt(m.maxAmount),
      maxNotionalUsdCents: BigInt(m.maxNotionalUsdCents), expiry: BigInt(m.expiry), auditSeq: BigInt(m.auditSeq), nonce: BigInt(m.nonce),
    };
    const recovered = await recoverTypedDataAddress({
      domain: { ...permit.domain, verifyingContract: settings.guard }, types: TRADE_PERMIT_TYPES, primaryType: 'TradePermit', message, signature: permit.signature as Hex,
    });
    assert.equal(recovered, signer.address);
    assert.equal(permit.signer, signer.address);
  });

  it('each permit has its own nonce; an amount finer than the token is cut, never rounded up', async () => {
    const [a, b] = await Promise.all([signTradePermit(settings, trade), signTradePermit(settings, trade)]);
    assert.notEqual(a.message.nonce, b.message.nonce);
    const fine = await signTradePermit(settings, { ...trade, amount: 1.2345678, decimals: 6 });
    assert.equal(fine.message.maxAmount, '1234567');
  });
});
