// The trivial uWS echo server every benchmark is compared against: read the body, send it back.
// An optional second argument burns that many microseconds of CPU per request before answering:
// an echo that costs what an evaluation costs, to show what latency the machine itself allows.
// A third argument, `address`, makes it read each request's client address as the service's edge
// does (src/http/plain-request.ts) and name it in an `x-client-address` header: the edge's floor.
import { loadNativeUws } from '../src/http/uws.js';
import { addressText } from '../src/http/plain-request.js';

const uws = loadNativeUws();
const port = Number(process.argv[2] ?? 0);
const burnNs = BigInt(Math.round(Number(process.argv[3] ?? 0) * 1000));
const readsAddress = process.argv[4] === 'address';

function burn(): void {
  if (burnNs === 0n) return;
  const until = process.hrtime.bigint() + burnNs;
  while (process.hrtime.bigint() < until);
}

uws
  .App()
  .post('/*', (res) => {
    // uWS.js asks the kernel (getpeername) and hands back a new ArrayBuffer on every call.
    const address = readsAddress ? addressText(new Uint8Array(res.getRemoteAddress())) : null;
    const chunks: Buffer[] = [];
    res.onAborted(() => undefined);
    res.onData((chunk, isLast) => {
      chunks.push(Buffer.from(new Uint8Array(chunk)));
      if (!isLast) return;
      burn();
      res.cork(() => {
        if (address !== null) res.writeHeader('x-client-address', address);
        res.writeHeader('content-type', 'application/json').end(Buffer.concat(chunks));
      });
    });
  })
  .listen('127.0.0.1', port, (token) => {
    if (!token) {
      process.stderr.write(`echo server could not listen on ${port}\n`);
      process.exit(1);
    }
    process.stdout.write(`listening ${uws.us_socket_local_port(token as never)}\n`);
  });
