// Configuration from the environment: defaults, coercion of numbers, and one message per bad variable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('fills the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.redisUrl, null);
    assert.equal(config.store, 'lmdb');
    assert.equal(config.auditStore, 'file');
    assert.equal(config.auditFsync, 'batch');
    assert.equal(config.maxBodyBytes, 65536);
    assert.equal(config.idempotencyTtlMs, 300_000);
    assert.equal(config.rpcTimeoutMs, 2_000);
    assert.deepEqual(config.rateLimits, {
      enabled: true,
      windowMs: 60_000,
      walletPerTier: { 1: 10, 2: 25, 3: 60 },
      ip: { free: 300, demo: 60, tokenSafety: 60, auditList: 120, auditVerify: 20, mcp: 30, a2a: 30, auth: 60 },
    });
    assert.equal(Object.isFrozen(config), true);
  });

  it('reads numbers and switches from text, and defaults the audit store to Redis when Redis is set', () => {
    const config = loadConfig({ PORT: '9000', RATE_LIMITS: 'off', RATE_LIMIT_WALLET_TIER2: '40', REDIS_URL: 'redis://127.0.0.1:6379' });
    assert.equal(config.port, 9000);
    assert.equal(config.rateLimits.enabled, false);
    assert.equal(config.rateLimits.walletPerTier[2], 40);
    assert.equal(config.auditStore, 'redis');
    assert.equal(config.store, 'redis');
  });

  it('names every bad variable and hides secrets', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty', AUDIT_FSYNC: 'sometimes', JWT_SECRET: 'short', PAY_TO_ADDRESS: '0x12' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.problems.length, 4);
        assert.match(error.message, /PORT="eighty": must be integer/);
        assert.match(error.message, /AUDIT_FSYNC="sometimes": must be one of always, batch, off/);
        assert.match(error.message, /JWT_SECRET=\(hidden\): must NOT have fewer than 32 characters/);
        assert.match(error.message, /PAY_TO_ADDRESS="0x12"/);
        assert.doesNotMatch(error.message, /short/);
        return true;
      },
    );
  });

  it('keeps the store in memory only when asked, and refuses a store that contradicts REDIS_URL', () => {
    assert.equal(loadConfig({ STORE: 'memory' }).store, 'memory');
    assert.throws(() => loadConfig({ STORE: 'redis' }), /STORE=redis: needs REDIS_URL/);
    assert.throws(() => loadConfig({ STORE: 'lmdb', REDIS_URL: 'redis://127.0.0.1:6379' }), /STORE=lmdb: REDIS_URL is set, and then the store is Redis/);
    assert.throws(() => loadConfig({ STORE: 'disk' }), /STORE="disk": must be one of lmdb, memory, redis/);
  });

  it('refuses a Redis audit store without Redis', () => {
    assert.throws(() => loadConfig({ AUDIT_STORE: 'redis' }), /AUDIT_STORE=redis: needs REDIS_URL/);
  });

  it('takes a Redis Cluster by its seed nodes, with one replica acknowledging each audit record by default', () => {
    const config = loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000, 127.0.0.1:7001' });
    assert.deepEqual([config.redisClusterNodes, config.redisUrl, config.store, config.auditStore], [['127.0.0.1:7000', '127.0.0.1:7001'], null, 'redis', 'redis']);
    assert.deepEqual(config.auditReplicas, { acks: 1, timeoutMs: 1000 });
    assert.deepEqual(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).auditReplicas, { acks: 0, timeoutMs: 1000 });
    const asked = loadConfig({ REDIS_CLUSTER_NODES: 'redis-a:7000', AUDIT_REPLICA_ACKS: '2', AUDIT_REPLICA_TIMEOUT_MS: '250' });
    assert.deepEqual(asked.auditReplicas, { acks: 2, timeoutMs: 250 });
  });

  it('refuses REDIS_URL and REDIS_CLUSTER_NODES together, and seed nodes without a port', () => {
    assert.throws(
      () => loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000' }),
      /REDIS_CLUSTER_NODES and REDIS_URL are both set: the shared store is one Redis or one Redis Cluster; unset one/,
    );
    assert.throws(() => loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1' }), /REDIS_CLUSTER_NODES="127.0.0.1": must match pattern/);
    assert.throws(() => loadConfig({ STORE: 'lmdb', REDIS_CLUSTER_NODES: '127.0.0.1:7000' }), /STORE=lmdb: REDIS_CLUSTER_NODES is set, and then the store is Redis/);
  });

  it('takes a chain read timeout from 100 ms to a minute', () => {
    assert.equal(loadConfig({ RPC_TIMEOUT_MS: '10000' }).rpcTimeoutMs, 10_000);
    assert.throws(() => loadConfig({ RPC_TIMEOUT_MS: '50' }), /RPC_TIMEOUT_MS="50": must be >= 100/);
    assert.throws(() => loadConfig({ RPC_TIMEOUT_MS: '60001' }), /RPC_TIMEOUT_MS="60001": must be <= 60000/);
  });

  it('treats empty variables as unset', () => {
    assert.equal(loadConfig({ PORT: '', REDIS_URL: '' }).port, 8080);
  });
});
