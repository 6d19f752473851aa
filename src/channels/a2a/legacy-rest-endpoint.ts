// /v1/... at A2A 0.3: each HTTP+JSON route's work for a request without A2A-Version, through the SDK's 0.3 REST transport handler.
import { LegacyRestTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { PATHS } from '../../catalogue/published-facts.js';
import { decodeSendParams, encodeSendResult, encodeTask } from './legacy-rest-codec.js';
import { readBody, splitVerb, type Operation } from './rest-request.js';

/** The 0.3 work of each route rest-endpoint.ts registers, keyed as it names them. */
export interface LegacyRestOperations {
  send: Operation;
  stream: Operation;
  list: Operation;
  getTask: Operation;
  postTask: Operation;
}

/**
 * The card's top-level `url` with `protocolVersion` 0.3.0 and `preferredTransport` HTTP+JSON is
 * this binding (ARCHITECTURE.md "A2A channel"). The SDK's 0.3 transport handler converts 0.3
 * objects to the 1.0 request the one request handler takes and back, as the JSON-RPC 0.3 transport
 * does at /a2a; legacy-rest-codec.ts is the wire format around it. Streaming, task reads and
 * cancels answer as at 1.0 (unsupported, task not found); 0.3 has no ListTasks route.
 */
export function legacyRestOperations(handler: A2ARequestHandler): LegacyRestOperations {
  const transport = new LegacyRestTransportHandler(handler);
  return {
    send: async (request, context) => {
      const result = await transport.sendMessage(decodeSendParams(readBody(request)), context);
      return { status: 200, body: encodeSendResult(result) };
    },
    stream: async () => {
      throw new UnsupportedOperationError('Streaming is not supported (capabilities.streaming is false); use message:send.');
    },
    list: async () => {
      throw new UnsupportedOperationError('A2A 0.3 has no ListTasks, and this agent keeps no tasks to list.');
    },
    getTask: async (request, context) => ({ status: 200, body: encodeTask(await transport.getTask(request.params.task!, context)) }),
    postTask: async (request, context) => {
      const [id, verb] = splitVerb(request.params.task!);
      if (verb === 'subscribe') throw new UnsupportedOperationError('Streaming is not supported (capabilities.streaming is false).');
      if (verb !== 'cancel') throw new RequestMalformedError(`POST ${PATHS.a2aRest}/tasks/{id} takes the verb :cancel; got "${request.params.task}".`);
      return { status: 200, body: encodeTask(await transport.cancelTask(id, context)) };
    },
  };
}
