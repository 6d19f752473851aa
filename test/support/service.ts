// Starts the real service in-process on a free loopback port with a throwaway data folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type Service, type ServiceOverrides } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';

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
  const config = loadConfig({ PORT: '0', DATA_DIR: dir, WORKERS: '1', AUDIT_FSYNC: 'off', ...env });
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

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? (JSON.parse(text) as any) : null };
}

export async function getJson(url: string) {
  const response = await fetch(url);
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, text, json };
}
