// /v1/...: A2A's HTTP+JSON binding, plain requests decoded with the SDK's proto-JSON codecs (0.3: legacy-rest-endpoint.ts) and handed to the request handler /a2a uses.
import { A2A_CONTENT_TYPE, A2A_VERSION_HEADER, ListTasksResponse, SendMessageRequest, SendMessageResponse, Task } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { ServerCallContext, STATE_HEADERS_KEY, validateVersion, type A2ARequestHandler } from '@a2a-js/sdk/server';
import { PATHS } from '../../catalogue/published-facts.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import type { RateLimiter } from '../../http/rate-limiter.js';
import { legacyRestOperations } from './legacy-rest-endpoint.js';
import { legacyRestError, restError } from './rest-errors.js';
import { readBody, splitVerb, type Operation } from './rest-request.js';

export interface A2ARestDeps {
  handler: A2ARequestHandler;
  limiter: RateLimiter;
}

/** A request without A2A-Version is a 0.3 client's, as the SDK's Express routers read it. */
const LEGACY_VERSION = '0.3';

/**
 * The routes of the SDK's Express `restHandler`, on our edge: SendMessage, and the task routes the
 * card's capabilities imply (GetTask, CancelTask, ListTasks, each answered by the request handler's
 * refusal: no task is kept). Streaming is refused, as the card says (`capabilities.streaming` false).
 * A task route's verb is in its last segment (`/v1/tasks/{id}:cancel`), which uWS cannot split, so
 * the handler does.
 */
export function a2aRestRoutes(deps: A2ARestDeps): Route[] {
  const { handler } = deps;
  const legacy = legacyRestOperations(handler);
  const route = (method: Route['method'], path: string, operation: Operation, legacyOperation: Operation): Route => ({
    method,
    pattern: `${PATHS.a2aRest}${path}`,
    readsBody: method === 'post',
    // A body that is not JSON is refused in the binding's own error shape, not the REST API's 415.
    ownsContentType: true,
    // Per IP, one window with JSON-RPC's (README "A2A").
    handler: (request) => deps.limiter.guard('a2a', request.ip, () => answer(handler, request, { current: operation, legacy: legacyOperation })),
  });
  return [
    route('post', '/message:send', async (request, context) => {
      const params = SendMessageRequest.fromJSON(readBody(request));
      if (!params.message?.messageId) throw new RequestMalformedError('message.messageId is required');
      const task = await handler.sendMessage(params, context);
      const payload = 'artifacts' in task ? { $case: 'task' as const, value: task } : { $case: 'message' as const, value: task };
      return { status: 200, body: SendMessageResponse.toJSON({ payload }) };
    }, legacy.send),
    route('post', '/message:stream', async () => {
      throw new UnsupportedOperationError('Streaming is not supported (capabilities.streaming is false); use message:send.');
    }, legacy.stream),
    route('get', '/tasks', async (_request, context) => {
      const listing = { tenant: '', contextId: '', status: 0, pageToken: '', includeArtifacts: false, statusTimestampAfter: undefined };
      return { status: 200, body: ListTasksResponse.toJSON(await handler.listTasks(listing, context)) };
    }, legacy.list),
    route('get', '/tasks/:task', async (request, context) => {
      const task = await handler.getTask({ id: request.params.task!, tenant: '' }, context);
      return { status: 200, body: Task.toJSON(task) };
    }, legacy.getTask),
    route('post', '/tasks/:task', async (request, context) => {
      const [id, verb] = splitVerb(request.params.task!);
      if (verb === 'subscribe') throw new UnsupportedOperationError('Streaming is not supported (capabilities.streaming is false).');
      if (verb !== 'cancel') throw new RequestMalformedError(`POST ${PATHS.a2aRest}/tasks/{id} takes the verb :cancel; got "${request.params.task}".`);
      const task = await handler.cancelTask({ id, tenant: '', metadata: {} }, context);
      return { status: 200, body: Task.toJSON(task) };
    }, legacy.postTask),
  ];
}

/**
 * As the SDK's Express routers with legacy support: no A2A-Version, or 0.3, is the 0.3 binding the
 * card's top-level `url` and `protocolVersion` describe (legacy-rest-endpoint.ts), answered in 0.3's
 * error body; any other version must be one the card lists HTTP+JSON at (1.0). The body must be
 * JSON, and every failure is the binding's error body (rest-errors.ts).
 */
async function answer(handler: A2ARequestHandler, request: PlainRequest, operations: { current: Operation; legacy: Operation }): Promise<PlainResponse> {
  const version = request.headers[A2A_VERSION_HEADER.toLowerCase()] || LEGACY_VERSION;
  const legacy = version === LEGACY_VERSION || version === '0.3.0';
  try {
    if (!legacy) validateVersion(version, await handler.getAgentCard(), 'HTTP+JSON');
    checkContentType(request.headers['content-type']);
    const context = new ServerCallContext({ requestedVersion: version, state: new Map([[STATE_HEADERS_KEY, request.headers]]) });
    return await (legacy ? operations.legacy : operations.current)(request, context);
  } catch (error) {
    return legacy ? legacyRestError(error) : restError(error);
  }
}

function checkContentType(contentType: string | undefined): void {
  if (!contentType) return;
  const media = contentType.split(';', 1)[0]!.trim().toLowerCase();
  if (media !== 'application/json' && media !== A2A_CONTENT_TYPE) {
    throw new ContentTypeNotSupportedError(`Unsupported Content-Type "${contentType}"; expected application/json or ${A2A_CONTENT_TYPE}.`);
  }
}
