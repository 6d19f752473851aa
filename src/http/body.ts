// Reads a request body from uWS with a size cap, copying chunks as the uWS rules require.
import type { HttpResponse } from 'uWebSockets.js';

/**
 * After a body passes the cap, up to this many more bytes are read and thrown away
 * before the 413 is sent, so a client still uploading gets to read the answer
 * instead of a connection reset (docs/operations.md, "Answers a client must handle").
 */
export const DISCARD_LIMIT_BYTES = 8 * 1024 * 1024;

/** Thrown when a body is over the cap; the edge answers 413 and closes the connection. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
  }
}

/** Thrown when the client went away before its body arrived: there is no one to answer. */
export class BodyAborted extends Error {
  constructor() {
    super('the client closed the connection before its body arrived');
  }
}

/**
 * Must be called synchronously inside the route handler (uWS requires onData to be
 * attached before returning). A body over the cap is read to its end and discarded
 * (up to DISCARD_LIMIT_BYTES more) before the promise rejects with BodyTooLarge; a
 * declared Content-Length beyond that is refused before any byte is read. `onAborted`
 * is handed the rejection for a client that goes away mid-body (uWS takes one abort
 * handler per response, which the edge holds), so no read is left waiting forever.
 */
export function readBody(
  res: HttpResponse, headers: Record<string, string>, limit: number, onAborted: (abort: () => void) => void,
): Promise<Buffer | null> {
  const declared = headers['content-length'];
  if (declared !== undefined && Number(declared) > limit + DISCARD_LIMIT_BYTES) return Promise.reject(new BodyTooLarge(limit));
  if (declared === '0' || (declared === undefined && headers['transfer-encoding'] === undefined)) {
    return Promise.resolve(null);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    onAborted(() => {
      if (done) return;
      done = true;
      reject(new BodyAborted());
    });
    res.onData((chunk, isLast) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > limit) {
        chunks.length = 0;
        if (!isLast && size <= limit + DISCARD_LIMIT_BYTES) return;
        done = true;
        return reject(new BodyTooLarge(limit));
      }
      // The ArrayBuffer is only valid during this callback: copy it, or concatenate now.
      if (!isLast) return void chunks.push(Buffer.from(new Uint8Array(chunk)));
      done = true;
      chunks.push(Buffer.from(chunk));
      resolve(Buffer.concat(chunks, size));
    });
  });
}

/**
 * Whether a body may be read as JSON: its Content-Type is `application/json` or a `+json` type, or
 * absent (as FastAPI reads it). Anything else (`text/plain`, a form) is refused with 415 unread.
 */
export function isJsonContent(contentType: string | undefined): boolean {
  // What nearly every client sends, known without splitting or lower-casing it.
  if (contentType === undefined || contentType === 'application/json') return true;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}
