// The plain request and response objects handlers see; nothing here knows about uWS.

export interface PlainRequest {
  /** X-Request-Id: the client's when it sent a plain token, else the edge's; echoed on the response and in the log. */
  id: string;
  method: string;
  /** Path without the query string. */
  path: string;
  /** Path parameters by name, as text. */
  params: Record<string, string>;
  /** Query parameters, first value of each name, as text. */
  query: Record<string, string>;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** Raw body bytes, or null when the method carries none. */
  body: Buffer | null;
  /** The peer's address as text. */
  ip: string;
}

export interface PlainResponse {
  status: number;
  headers?: Record<string, string>;
  /** JSON-serialised unless `raw` is given. */
  body?: unknown;
  /** Pre-rendered body (HTML, Markdown, text) sent as is with its content type. */
  raw?: { contentType: string; text: string | Buffer };
}

export type Handler = (request: PlainRequest) => PlainResponse | Promise<PlainResponse>;

export interface Route {
  method: 'get' | 'post' | 'delete' | 'put' | 'patch';
  /** uWS pattern, e.g. /api/v1/audit/wallet/:wallet */
  pattern: string;
  handler: Handler;
  /** Whether the route reads a body (POST-like). */
  readsBody?: boolean;
  /**
   * The handler answers a body that is not JSON itself, in its protocol's own error shape (MCP's
   * JSON-RPC error); otherwise the edge refuses it with the REST 415.
   */
  ownsContentType?: boolean;
}
