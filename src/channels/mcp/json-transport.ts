// One MCP session's transport: a POST's JSON-RPC messages go to the SDK server, and the responses it sends come back as one JSON answer.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type JSONRPCRequest, type MessageExtraInfo, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { json } from '../../http/responses.js';
import type { PlainRequest, PlainResponse } from '../../http/types.js';
import { isInitialize, isRequest, readMessages, refuseHeaders } from './inbound.js';
import { rpcFault, unsupportedVersion } from './rpc-faults.js';

export interface JsonTransportOptions {
  newSessionId: () => string;
  /** The version the server is told a client's initialize asks for, given the one it asked for. */
  offeredVersion: (asked: string) => string;
  onSessionStarted: (id: string) => void;
  onSessionEnded: (id: string) => void;
  /** The result, as JSON text, of a request answered without the SDK server (server.ts directToolCall), or undefined to hand it over. */
  direct?: (request: JSONRPCRequest) => Promise<string> | undefined;
}

/** One POST's requests, waiting for the server to answer each of them. */
interface Exchange {
  ids: RequestId[];
  responses: Map<RequestId, JSONRPCMessage>;
  settle: (response: PlainResponse) => void;
}

/**
 * Streamable HTTP (spec 2025-06-18, "Transports") as the SDK's
 * WebStandardStreamableHTTPServerTransport answers it with `enableJsonResponse`, in the same
 * order of checks and with the same faults (rpc-faults.ts), minus what we never serve: no
 * SSE (GET is 405 at the endpoint), no resumability. The edge has read the body already, so
 * nothing here builds a web Request or Response.
 */
export class JsonTransport implements Transport {
  sessionId?: string;
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private started = false;
  private closed = false;
  private readonly waiting = new Map<RequestId, Exchange>();

  constructor(private readonly options: JsonTransportOptions) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('Transport already started');
    this.started = true;
  }

  /** Answers a POST or a DELETE of the endpoint for this session (or for the one an initialize starts). */
  handle(request: PlainRequest): PlainResponse | Promise<PlainResponse> {
    if (this.closed) return rpcFault('sessionNotFound');
    return request.method === 'DELETE' ? this.end(request) : this.post(request);
  }

  /** Called by the SDK server for every message it sends; only responses have somewhere to go. */
  async send(message: JSONRPCMessage): Promise<void> {
    // Server requests and notifications would need an SSE stream; as in the SDK's JSON mode, they are dropped.
    if (!('result' in message) && !('error' in message)) return;
    const id = message.id;
    const exchange = id === undefined ? undefined : this.waiting.get(id);
    if (id === undefined || !exchange) throw new Error(`No connection established for request ID: ${String(id)}`);
    exchange.responses.set(id, message);
    if (exchange.responses.size < exchange.ids.length) return;
    for (const each of exchange.ids) this.waiting.delete(each);
    const body = exchange.ids.length === 1 ? message : exchange.ids.map((each) => exchange.responses.get(each));
    exchange.settle(json(200, body, this.sessionId === undefined ? undefined : { 'mcp-session-id': this.sessionId }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A POST still waiting when the session ends (DELETE, idle sweep) is told the session is gone;
    // the SDK's transport left it unanswered.
    const pending = new Set(this.waiting.values());
    this.waiting.clear();
    for (const exchange of pending) exchange.settle(rpcFault('sessionNotFound'));
    this.onclose?.();
  }

  private post(request: PlainRequest): PlainResponse | Promise<PlainResponse> {
    const refused = refuseHeaders(request.headers);
    if (refused) return refused;
    const read = readMessages(request.body);
    if ('fault' in read) return read.fault;
    let messages = read.messages;
    const initialize = messages.find(isInitialize);
    const fault = initialize ? this.initialize(messages.length) : this.checkSession(request.headers);
    if (fault) return fault;
    if (initialize) {
      // The server answers the version it is told was asked: server.ts offeredProtocolVersion says why here.
      const protocolVersion = this.options.offeredVersion(initialize.params.protocolVersion);
      messages = [{ ...initialize, params: { ...initialize.params, protocolVersion } }];
    }
    if (messages.length === 1 && !initialize && isRequest(messages[0])) {
      const answered = this.answerDirectly(messages[0]);
      if (answered) return answered;
    }
    const extra: MessageExtraInfo = { requestInfo: { headers: request.headers } };
    if (!messages.some(isRequest)) return this.dispatch(messages, extra) ?? { status: 202 };
    return this.exchange(messages, extra);
  }

  /**
   * One request the session answers itself, its result as the SDK's Protocol sends one. The tool
   * call answers every failure as a tool error result (tool-handlers.ts callTool), so it does not
   * reject; if it ever did, the edge would answer 500 and log it.
   */
  private answerDirectly(message: JSONRPCRequest): Promise<PlainResponse> | undefined {
    const result = this.options.direct?.(message);
    if (result === undefined) return undefined;
    const headers = { 'mcp-session-id': this.sessionId! };
    return result.then((answer) => ({ status: 200, headers, raw: { contentType: 'application/json', text: `{"result":${answer},"jsonrpc":"2.0","id":${JSON.stringify(message.id)}}` } }));
  }

  /** Spec "Session Management": the session starts with the answer to the one initialize request. */
  private initialize(count: number): PlainResponse | undefined {
    if (this.sessionId !== undefined) return rpcFault('alreadyInitialized');
    if (count > 1) return rpcFault('oneInitialize');
    this.sessionId = this.options.newSessionId();
    this.options.onSessionStarted(this.sessionId);
    return undefined;
  }

  /** Every request after initialize names the session, and any protocol version it states is one the SDK knows. */
  private checkSession(headers: Record<string, string>): PlainResponse | undefined {
    if (this.sessionId === undefined) return rpcFault('notInitialized');
    const id = headers['mcp-session-id'];
    if (!id) return rpcFault('sessionRequired');
    if (id !== this.sessionId) return rpcFault('sessionNotFound');
    const version = headers['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return unsupportedVersion(version);
    return undefined;
  }

  private exchange(messages: JSONRPCMessage[], extra: MessageExtraInfo): Promise<PlainResponse> {
    return new Promise((settle) => {
      const exchange: Exchange = { ids: [], responses: new Map(), settle };
      for (const message of messages) {
        if (!isRequest(message) || this.waiting.get(message.id) === exchange) continue;
        this.waiting.set(message.id, exchange);
        exchange.ids.push(message.id);
      }
      const failed = this.dispatch(messages, extra);
      if (!failed) return;
      for (const id of exchange.ids) if (this.waiting.get(id) === exchange) this.waiting.delete(id);
      settle(failed);
    });
  }

  /** Hands each message to the server; one it throws on is answered as the SDK answers it. */
  private dispatch(messages: JSONRPCMessage[], extra: MessageExtraInfo): PlainResponse | undefined {
    try {
      for (const message of messages) this.onmessage?.(message, extra);
      return undefined;
    } catch (error) {
      this.onerror?.(error as Error);
      return rpcFault('dispatchFailed', { data: String(error) });
    }
  }

  /** Spec "Session Management": DELETE ends the session. */
  private async end(request: PlainRequest): Promise<PlainResponse> {
    const fault = this.checkSession(request.headers);
    if (fault) return fault;
    this.options.onSessionEnded(this.sessionId!);
    await this.close();
    return { status: 200 };
  }
}
