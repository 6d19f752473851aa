// The facilitator's HTTP face, as the x402 protocol defines it: POST /verify, POST /settle, GET /supported.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';

export interface RunningFacilitator {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;

/**
 * Bodies are `{x402Version, paymentPayload, paymentRequirements}`; answers are the library's
 * VerifyResponse and SettleResponse (a refusal is a 200 with `isValid`/`success` false). A body
 * that is not that shape is a 400; a fault of the facilitator itself a 500 with `error`.
 */
export async function serveFacilitator(facilitator: x402Facilitator, host: string, port: number, log: (line: string) => void): Promise<RunningFacilitator> {
  const server = createServer((request, response) => {
    answer(facilitator, request, response, log).catch((error: unknown) => {
      log(`facilitator: ${request.method} ${request.url}: ${(error as Error).message}`);
      if (!response.headersSent) send(response, 500, { error: 'internal facilitator error' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `http://${shown}:${address.port}`, close: () => closeServer(server) };
}

async function answer(facilitator: x402Facilitator, request: IncomingMessage, response: ServerResponse, log: (line: string) => void): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  if (path === '/supported') {
    if (request.method !== 'GET') return send(response, 405, { error: 'use GET' }, { allow: 'GET' });
    return send(response, 200, facilitator.getSupported());
  }
  if (path !== '/verify' && path !== '/settle') return send(response, 404, { error: 'not found: POST /verify, POST /settle, GET /supported' });
  if (request.method !== 'POST') return send(response, 405, { error: 'use POST' }, { allow: 'POST' });
  const body = await readJson(request);
  if (!isRequest(body)) return send(response, 400, { error: 'the body must be {x402Version, paymentPayload, paymentRequirements}' });
  try {
    const result = path === '/verify'
      ? await facilitator.verify(body.paymentPayload, body.paymentRequirements)
      : await facilitator.settle(body.paymentPayload, body.paymentRequirements);
    return send(response, 200, result);
  } catch (error) {
    // The library throws for a payload it cannot route (unknown version, scheme or network).
    log(`facilitator: ${path}: ${(error as Error).message}`);
    return send(response, 400, { error: (error as Error).message });
  }
}

function isRequest(body: unknown): body is { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements } {
  if (typeof body !== 'object' || body === null) return false;
  const { paymentPayload, paymentRequirements } = body as Record<string, unknown>;
  return typeof paymentPayload === 'object' && paymentPayload !== null && typeof paymentRequirements === 'object' && paymentRequirements !== null;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return null;
  }
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(text);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
