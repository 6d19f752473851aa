// Starts the real service in-process on a free loopback port with a throwaway data folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { request, type Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startService, type Service, type ServiceOverrides } from '../../src/assembly/app.js';
import { loadConfig } from '../../src/config.js';

export const SAMPLE_REGISTRY = fileURLToPath(new URL('../../../registry/sample-registry.json', import.meta.url));

export interface TestService {
  service: Service;
  base: string;
  dataDir: string;
  logs: string[];
  /** Stops the service; the data folder is kept unless `removeData` is true. */
  stop(removeData?: boolean): Promise<void>;
}

export async function startTestService(
  env: Record<string, string> = {},
  dataDir?: string,
  overrides: ServiceOverrides = {},
): Promise<TestService> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'guardrail-test-'));
  // Offline by default: the sample registry and its default prices, no chain node.
  const config = loadConfig({ PORT: '0', DATA_DIR: dir, WORKERS: '1', AUDIT_FSYNC: 'off', REGISTRY_FILE: SAMPLE_REGISTRY, ...env });
  const logs: string[] = [];
  const service = await startService(config, (line) => logs.push(line), overrides);
  return {
    service,
    base: `http://127.0.0.1:${service.port}`,
    dataDir: dir,
    logs,
    stop: async (removeData = true) => {
      await service.close();
      if (removeData) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A registry asset of the sample registry and a valid trade for it. */
export function sampleTrade(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    wallet: '0x1111111111111111111111111111111111111111',
    asset: 'TSLA',
    contract_address: '0xa6f91334bed73452616829fac9fa646b4b2b76e0',
    side: 'buy',
    amount: 2,
    ...overrides,
  };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/**
 * One request on a fresh connection that closes afterwards, so no keep-alive
 * socket holds the test process open once the suite is done; or over `agent`,
 * for a test that wants its connections kept alive (and destroys the agent itself).
 */
export function send(method: string, url: string, body?: string | Buffer, headers: Record<string, string> = {}, agent: Agent | false = false): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, text, json: parseOrNull(text) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function parseOrNull(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}, agent: Agent | false = false): Promise<HttpResult> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return send('POST', url, text, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers }, agent);
}

export function getJson(url: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return send('GET', url, undefined, headers);
}
