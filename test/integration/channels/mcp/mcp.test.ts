// The MCP channel driven by the SDK's own Client over streamable HTTP against the running service.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { ManualClock } from '../../../support/manual-clock.js';
import { signPayment, stockClient } from '../../../support/x402-payer.js';
import { getJson, postJson, startTestService, type TestService } from '../../../support/service.js';

const execFileAsync = promisify(execFile);
const clock = new ManualClock();
let running: TestService;
const clients: Client[] = [];

before(async () => {
  // Generous session and request limits here; the limits themselves are tested on their own instances.
  running = await startTestService({ REGISTRY_FILE: '', RATE_LIMIT_IP_MCP: '1000', MCP_SESSIONS_PER_IP: '50' }, undefined, { now: clock.now });
});
after(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await running.stop();
});

/** A client as agents run it: connected, and the tools listed, so every result is checked against the tool's output schema. */
async function connect(base = running.base): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp-http/mcp`));
  const client = new Client({ name: 'guardrail-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  await client.listTools();
  return { client, transport };
}

const INSPECTOR = fileURLToPath(new URL('../../../../../node_modules/@modelcontextprotocol/inspector-cli/build/index.js', import.meta.url));

/** The MCP Inspector's CLI calling one tool (it lists the tools first); its printed result. */
async function inspectorCall(tool: string, args: string[]): Promise<{ isError?: boolean; structuredContent?: Record<string, unknown> }> {
  // Run from its own folder: the CLI finds its package.json by a path relative to the working directory.
  const { stdout } = await execFileAsync(process.execPath, [INSPECTOR, `${running.base}/mcp-http/mcp`, '--transport', 'http', '--method', 'tools/call', '--tool-name', tool, '--tool-arg', ...args], { cwd: dirname(INSPECTOR) });
  return JSON.parse(stdout) as { isError?: boolean; structuredContent?: Record<string, unknown> };
}

function tsla() {
  return running.service.registry.bySymbol('TSLA')!.contract_address;
}

const WALLET = '0x00000000000000000000000000000000000000a1';

describe('MCP server', () => {
  it('initializes with protocol 2025-06-18, logging, and a fixed tool list', async () => {
    const { client, transport } = await connect();
    assert.equal(transport.protocolVersion, '2025-06-18');
    assert.deepEqual(client.getServerCapabilities(), { logging: {}, tools: { listChanged: false } });
    assert.equal(client.getServerVersion()?.name, 'trade-guardrail');
  });

  it('lists the six tools with strict input schemas and read-only annotations', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), [
      'evaluate_trade', 'evaluate_trade_paid', 'check_token_safety', 'simulate_balance', 'get_supported_assets', 'verify_audit_trail',
    ]);
    const evaluate = tools[0];
    assert.equal(evaluate.inputSchema.additionalProperties, false);
    assert.deepEqual(evaluate.inputSchema.required, ['wallet', 'asset', 'contract_address', 'side', 'amount']);
    const props = evaluate.inputSchema.properties as Record<string, Record<string, unknown>>;
    assert.equal(props.wallet.pattern, '^0x[a-fA-F0-9]{40}$');
    assert.equal(props.max_slippage_bps.maximum, 10000);
    for (const tool of tools) {
      assert.equal(tool.outputSchema?.type, 'object', tool.name);
      assert.deepEqual(
        { ...tool.annotations, title: undefined },
        { title: undefined, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      );
    }
  });

  it('evaluates a trade at Tier 1 into the same audit chain, channel mcp', async () => {
    const { client } = await connect();
    const answer = await client.callTool({
      name: 'evaluate_trade',
      arguments: { wallet: WALLET, asset: 'TSLA', contract_address: tsla(), side: 'buy', amount: 1, request_id: 'mcp-1' },
    });
    assert.equal(answer.isError, undefined);
    const verdict = answer.structuredContent as Record<string, unknown>;
    assert.equal(verdict.tier, 1);
    assert.equal(verdict.max_trade_usd, 5000);
    assert.equal(verdict.request_id, 'mcp-1');
    assert.match(String(verdict.audit_hash), /^[0-9a-f]{64}$/);
    assert.deepEqual(JSON.parse((answer.content as { text: string }[])[0].text), verdict);
    const listed = await getJson(`${running.base}/api/v1/audit/wallet/${WALLET}?limit=1`);
    assert.equal(listed.json.records[0].channel, 'mcp');
    assert.equal(listed.json.records[0].seq, verdict.audit_seq);
  });

  it('denies a contract that does not match the registry', async () => {
    const { client } = await connect();
    const answer = await client.callTool({
      name: 'evaluate_trade',
      arguments: { wallet: WALLET, asset: 'TSLA', contract_address: `0x${'9'.repeat(40)}`, side: 'sell', amount: 1 },
    });
    const verdict = answer.structuredContent as { decision: string; reasons: string[] };
    assert.equal(verdict.decision, 'deny');
    assert.match(verdict.reasons[0], /^FAKE_TOKEN_SUSPECTED: /);
  });

  it('answers bad arguments with an error result naming the field', async () => {
    const { client } = await connect();
    const answer = await client.callTool({
      name: 'evaluate_trade',
      arguments: { wallet: WALLET, asset: 'TSLA', contract_address: tsla(), side: 'buy', amount: 1, max_slippage_bps: 20000, deadline: 5 },
    });
    assert.equal(answer.isError, true);
    const error = answer.structuredContent as { error: string; detail: { loc: string[]; type: string }[] };
    assert.equal(error.error, 'invalid arguments');
    assert.deepEqual(error.detail.map((issue) => [issue.loc, issue.type]), [
      [['deadline'], 'extra_forbidden'],
      [['max_slippage_bps'], 'less_than_equal'],
    ]);
  });

  it('answers every tool\'s failures with error results the stock client accepts after listTools, and the Inspector CLI too', async () => {
    const { client } = await connect();
    const failures: [string, Record<string, unknown>, string][] = [
      ['evaluate_trade', { wallet: WALLET, asset: 'TSLA', contract_address: tsla(), side: 'buy', amount: -1 }, 'validation_failed'],
      ['evaluate_trade_paid', { wallet: WALLET, asset: 'TSLA', contract_address: tsla(), side: 'buy', amount: 1, payment_proof: 'bm90IGEgcGF5bWVudA==' }, 'payment_refused'],
      ['check_token_safety', { contract_address: 'not an address' }, 'validation_failed'],
      ['simulate_balance', { wallet: WALLET }, 'validation_failed'],
      ['get_supported_assets', { unexpected: true }, 'validation_failed'],
      ['verify_audit_trail', { wallet: WALLET, limit: 0 }, 'validation_failed'],
    ];
    for (const [name, args, code] of failures) {
      const answer = await client.callTool({ name, arguments: args });
      assert.equal(answer.isError, true, name);
      assert.equal((answer.structuredContent as { code: string }).code, code, name);
    }
    const inspected = await inspectorCall('evaluate_trade', [`wallet=${WALLET}`, 'asset=TSLA', `contract_address=${tsla()}`, 'side=buy', 'amount=-1']);
    assert.equal(inspected.isError, true, JSON.stringify(inspected));
    assert.equal(inspected.structuredContent?.code, 'validation_failed');
  });

  it('shares the per-wallet window with REST', async () => {
    const { client } = await connect();
    const wallet = '0x00000000000000000000000000000000000000b2';
    const body = { wallet, asset: 'TSLA', contract_address: tsla(), side: 'buy', amount: 1 };
    for (let i = 0; i < 10; i += 1) assert.equal((await postJson(`${running.base}/api/v1/analyze/free`, body)).status, 200);
    const answer = await client.callTool({ name: 'evaluate_trade', arguments: body });
    assert.equal(answer.isError, true);
    assert.match((answer.structuredContent as { error: string }).error, /^rate limited: 10 evaluations per 60 s for this wallet/);
  });

  it('lists the registry and verifies an audit trail', async () => {
    const { client } = await connect();
    const assets = (await client.callTool({ name: 'get_supported_assets', arguments: {} })).structuredContent as { assets: { symbol: string; decimals: number }[] };
    assert.deepEqual(assets.assets.map((asset) => asset.symbol), running.service.registry.assets.map((asset) => asset.symbol));
    assert.equal(assets.assets[0].decimals, 18);
    // A wallet of this test's own with two records, rather than what earlier tests left for WALLET.
    const wallet = '0x00000000000000000000000000000000000000c3';
    for (const side of ['buy', 'sell']) {
      const evaluated = await client.callTool({ name: 'evaluate_trade', arguments: { wallet, asset: 'TSLA', contract_address: tsla(), side, amount: 1 } });
      assert.equal(evaluated.isError, undefined);
    }
    const verified = await client.callTool({ name: 'verify_audit_trail', arguments: { wallet } });
    assert.deepEqual(verified.structuredContent, { healthy: true, records_checked: 2, first_broken_seq: null });
  });

  it('returns the payment challenge without a proof: the spec\'s fields, the EIP-712 domain and the x402 version', async () => {
    const { client } = await connect();
    const args = { wallet: WALLET, asset: 'TSLA', contract_address: tsla(), side: 'buy', amount: 1 };
    const challenge = (await client.callTool({ name: 'evaluate_trade_paid', arguments: args })).structuredContent as Record<string, unknown>;
    const devnet = running.service.chain.devnet!;
    assert.deepEqual(challenge, {
      status: 'payment_required', network: 'eip155:4663', asset: devnet.contracts.stablecoin, amount: '100000', pay_to: devnet.treasury,
      resource: `${running.base}/api/x402/analyze`,
      description: "One pre-trade risk evaluation at Tier 2 (max notional 25,000 USD), whatever the payer's holdings",
      max_timeout_seconds: 300, tier_granted: 2, extra: { name: 'USD Coin', version: '2' }, x402_version: 1,
    });
  });

  it('sells a Tier 2 verdict for a payment_proof signed by an x402 client, once', async () => {
    const { client } = await connect();
    const devnet = running.service.chain.devnet!;
    const payer = devnet.wallets[0];
    const args = { wallet: '0x00000000000000000000000000000000000000a7', asset: 'TSLA', contract_address: tsla(), side: 'buy', amount: 20 };
    const challenge = (await client.callTool({ name: 'evaluate_trade_paid', arguments: args })).structuredContent as Record<string, any>;
    const requirements = {
      scheme: 'exact', network: challenge.network, maxAmountRequired: challenge.amount, resource: challenge.resource,
      description: challenge.description, mimeType: 'application/json', payTo: challenge.pay_to,
      maxTimeoutSeconds: challenge.max_timeout_seconds, asset: challenge.asset, extra: challenge.extra,
    };
    // The stock x402 client signs the challenge's terms, read as the v2 PaymentRequired they are.
    const paymentRequired = {
      x402Version: 2, resource: { url: challenge.resource, description: challenge.description, mimeType: 'application/json' },
      accepts: [{
        scheme: 'exact', network: challenge.network, asset: challenge.asset, amount: challenge.amount, payTo: challenge.pay_to,
        maxTimeoutSeconds: challenge.max_timeout_seconds, extra: challenge.extra,
      }],
    };
    const proof = encodePaymentSignatureHeader(await stockClient(payer.privateKey, challenge.asset).createPaymentPayload(paymentRequired));
    const paid = await client.callTool({ name: 'evaluate_trade_paid', arguments: { ...args, payment_proof: proof } });
    assert.equal(paid.isError, undefined, JSON.stringify(paid.structuredContent));
    const verdict = paid.structuredContent as Record<string, any>;
    assert.deepEqual([verdict.decision, verdict.tier, verdict.max_trade_usd], ['allow', 2, 25_000]);
    assert.deepEqual({ ...verdict.payment_response, transaction: undefined }, { success: true, transaction: undefined, network: 'eip155:4663', payer: payer.address });
    const again = await client.callTool({ name: 'evaluate_trade_paid', arguments: { ...args, payment_proof: proof } });
    assert.equal((again.structuredContent as Record<string, unknown>).audit_seq, verdict.audit_seq, 'the same proof and trade replay the verdict');
    const other = await client.callTool({ name: 'evaluate_trade_paid', arguments: { ...args, amount: 21, payment_proof: proof } });
    assert.equal(other.isError, true);
    const refused = other.structuredContent as Record<string, any>;
    assert.deepEqual([refused.code, refused.reason, refused.challenge.status], ['payment_refused', 'payment_used', 'payment_required']);
    const garbage = await client.callTool({ name: 'evaluate_trade_paid', arguments: { ...args, payment_proof: 'proof' } });
    assert.equal(garbage.isError, true);
    assert.equal((garbage.structuredContent as Record<string, unknown>).reason, 'payment_malformed');
    assert.equal((garbage.structuredContent as Record<string, unknown>).decision, undefined);
    // Signed for ten years instead of the challenge's 300 s: refused before it is verified or charged.
    const decade = await signPayment(payer.privateKey, requirements as never, { authorization: { validBefore: BigInt(Math.floor(Date.now() / 1000) + 10 * 365 * 86_400) } });
    const tooLong = await client.callTool({ name: 'evaluate_trade_paid', arguments: { ...args, amount: 22, payment_proof: decade } });
    assert.equal(tooLong.isError, true);
    const refusedLong = tooLong.structuredContent as Record<string, any>;
    assert.deepEqual([refusedLong.code, refusedLong.reason, refusedLong.decision], ['payment_refused', 'authorization_window_too_long', undefined]);
  });
});

describe('MCP sessions', () => {
  it('allows five sessions per client IP and frees one on DELETE', async () => {
    const service = await startTestService();
    try {
      const open = await Promise.all(Array.from({ length: 5 }, () => connect(service.base)));
      await assert.rejects(connect(service.base), /429|Too many MCP sessions/);
      await open[0].transport.terminateSession();
      await connect(service.base);
    } finally {
      await service.stop();
    }
  });

  it('expires a session after 300 s idle', async () => {
    // Its own service and clock: moving time 301 s ahead must not age anything another test uses.
    const own = new ManualClock();
    const service = await startTestService({}, undefined, { now: own.now });
    try {
      const { client } = await connect(service.base);
      own.advance(301_000);
      await assert.rejects(client.listTools(), /Session not found|404/);
    } finally {
      await service.stop();
    }
  });

  it('answers 429 with Retry-After and the limit headers past 30 requests a minute', async () => {
    const service = await startTestService({ RATE_LIMIT_IP_MCP: '3' });
    try {
      const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
      const headers = { accept: 'application/json, text/event-stream' };
      for (let i = 0; i < 3; i += 1) assert.equal((await postJson(`${service.base}/mcp-http/mcp`, init, headers)).status, 200);
      const refused = await postJson(`${service.base}/mcp-http/mcp`, init, headers);
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      assert.equal(refused.headers.get('x-ratelimit-limit'), '3');
      assert.equal(refused.headers.get('x-ratelimit-window'), '60');
    } finally {
      await service.stop();
    }
  });
});

describe('server card', () => {
  it('serves version 1.0.3 with the registered tools at every alias', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    for (const path of ['/.well-known/mcp-server-card.json', '/.well-known/mcp/server-card.json', '/.well-known/mcp.json']) {
      const card = await getJson(`${running.base}${path}`);
      assert.equal(card.status, 200);
      assert.equal(card.json.version, '1.0.3');
      assert.equal(card.json.protocolVersion, '2025-06-18');
      assert.deepEqual(card.json.tools, JSON.parse(JSON.stringify(tools)));
    }
  });
});
