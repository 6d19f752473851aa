// The real facilitator behind a pass-through that runs a step of the test's just before one settlement (a disk filled as the payment settles).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SettlingFacilitator {
  url: string;
  /** `step` runs once, when the next /settle arrives, before it is passed on. */
  beforeNextSettle(step: () => Promise<void>): void;
  close(): Promise<void>;
}

/** Passes every request to the facilitator at `upstream` unchanged, and its answer back. */
export async function settlingFacilitator(upstream: string): Promise<SettlingFacilitator> {
  let pending: (() => Promise<void>) | null = null;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.url === '/settle' && pending) {
      const step = pending;
      pending = null;
      await step();
    }
    const body = request.method === 'POST' ? Buffer.concat(chunks) : undefined;
    const answer = await fetch(`${upstream}${request.url}`, { method: request.method, headers: { 'content-type': 'application/json' }, body });
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    beforeNextSettle: (step) => (pending = step),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
