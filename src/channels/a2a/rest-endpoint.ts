// /v1/...: A2A's HTTP+JSON binding, plain requests decoded with the SDK's proto-JSON codecs and handed to the request handler /a2a uses.
import { A2A_CONTENT_TYPE, A2A_VERSION_HEADER, ListTasksResponse, SendMessageRequest, SendMessageResponse, Task } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, RequestMalformedError, UnsupportedOperationError, VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { ServerCallContext, STATE_HEADERS_KEY, validateVersion, type A2ARequestHandler } from '@a2a-js/sdk/server';
import { PATHS } from '../../catalogue/published-facts.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import type { RateLimiter } from '../../http/rate-limiter.js';
import { shapeProblem } from '../../schemas/json-shape.js';
import { invalidInput } from './a2a-errors.js';
import { restError } from './rest-errors.js';

export interface A2ARestDeps {
  handler: A2ARequestHandler;
  limiter: RateLimiter;
}

const UTF8 = new TextDecoder();
/** A request without A2A-Version is a 0.3 client's, as the SDK's Express routers read it. */
const LEGACY_VERSION = '0.3';
type Operation = (request: PlainRequest, context: ServerCallContext) => Promise<PlainResponse>;

/**
 * The routes of the SDK's Express `restHandler`, on our edge: SendMessage, and the task routes the
 * card's capabilities imply (GetTask, CancelTask, ListTasks, each answered by the request handler's
 * refusal: no task is kept). Streaming is refused, as the card says (`capabilities.streaming` false).
 * A task route's verb is in its last segment (`/v1/tasks/{id}:cancel`), which uWS cannot split, so
 * the handler does.
 */
export function a2aRestRoutes(deps: A2ARestDeps): Route[] {
  const { handler } = deps;
  const route = (method: Route['method'], path: string, operation: Operation): Route => ({
    method,
    pattern: `${PATHS.a2aRest}${path}`,
    readsBody: method === 'post',
    // A body that is not JSON is refused in the binding's own error shape, not the REST API's 415.
    ownsContentType: true,
    // Per IP, one window with JSON-RPC's (README "A2A").
    handler: async (request) => (await deps.limiter.checkIp('a2a', request.ip)) ?? answer(handler, request, operation),
  });
  return [
    route('post', '/message:send', async (request, context) => {
      const params = SendMessageRequest.fromJSON(readBody(request));
      if (!params.message?.messageId) throw new RequestMalformedError('message.messageId is required');
      const task = await handler.sendMessage(params, context);
      const payload = 'artifacts' in task ? { $case: 'task' as const, value: task } : { $case: 'message' as const, value: task };
      return { status: 200, body: SendMessageResponse.toJSON({ payload }) };
    }),
    route('post', '/message:stream', async () => {
      throw new UnsupportedOperationError('Streaming is not supported (capabilities.streaming is false); use message:send.');
    }),
    route('get', '/tasks', async (_request, context) => {
      const listing = { tenant: '', contextId: '', status: 0, pageToken: '', includeArtifacts: false, statusTimestampAfter: undefined };
      return { status: 200, body: ListTasksResponse.toJSON(await handler.listTasks(listing, context)) };
    }),
    route('get', '/tasks/:task', async (request, context) => {
      const task = await handler.getTask({ id: request.params.task!, tenant: '' }, context);
      return { status: 200, body: Task.toJSON(task) };
    }),
    route('post', '/tasks/:task', async (request, context) => {
      const [id, verb] = splitVerb(request.params.task!);
      if (verb === 'subscribe') throw new UnsupportedOperationError('Streaming is not supported (capabilities.streaming is false).');
      if (verb !== 'cancel') throw new RequestMalformedError(`POST ${PATHS.a2aRest}/tasks/{id} takes the verb :cancel; got "${request.params.task}".`);
      const task = await handler.cancelTask({ id, tenant: '', metadata: {} }, context);
      return { status: 200, body: Task.toJSON(task) };
    }),
  ];
}

/**
 * As the SDK's Express handler: the card must list HTTP+JSON at the requested version (1.0; a 0.3
 * client is told which versions are served), the body must be JSON, and every failure is the
 * binding's error body (rest-errors.ts).
 */
async function answer(handler: A2ARequestHandler, request: PlainRequest, operation: Operation): Promise<PlainResponse> {
  try {
    const version = request.headers[A2A_VERSION_HEADER.toLowerCase()] || LEGACY_VERSION;
    if (version === LEGACY_VERSION || version === '0.3.0') {
      throw new VersionNotSupportedError(
        `A2A 0.3 is served over JSON-RPC at ${PATHS.a2a}; this HTTP+JSON endpoint speaks A2A 1.0: send A2A-Version: 1.0.`,
      );
    }
    validateVersion(version, await handler.getAgentCard(), 'HTTP+JSON');
    checkContentType(request.headers['content-type']);
    const context = new ServerCallContext({ requestedVersion: version, state: new Map([[STATE_HEADERS_KEY, request.headers]]) });
    return await operation(request, context);
  } catch (error) {
    return restError(error);
  }
}

function checkContentType(contentType: string | undefined): void {
  if (!contentType) return;
  const media = contentType.split(';', 1)[0]!.trim().toLowerCase();
  if (media !== 'application/json' && media !== A2A_CONTENT_TYPE) {
    throw new ContentTypeNotSupportedError(`Unsupported Content-Type "${contentType}"; expected application/json or ${A2A_CONTENT_TYPE}.`);
  }
}

/**
 * The JSON body, bounded before the SDK's codecs walk it as a REST body is (ARCHITECTURE.md
 * "Hostile input"): they recurse, and metadata nested 5,000 levels would overflow the stack.
 */
function readBody(request: PlainRequest): unknown {
  let body: unknown;
  try {
    body = JSON.parse(UTF8.decode(request.body ?? new Uint8Array(0)));
  } catch {
    throw new RequestMalformedError('Invalid JSON payload.');
  }
  const unsound = shapeProblem(body, 'body');
  if (unsound) throw invalidInput('invalid HTTP+JSON request: see detail', [unsound]);
  return body;
}

/** `{id}:{verb}` of a task route's last segment; a task id holds no colon (ours are UUIDs). */
function splitVerb(segment: string): [string, string | undefined] {
  const colon = segment.lastIndexOf(':');
  return colon < 0 ? [segment, undefined] : [segment.slice(0, colon), segment.slice(colon + 1)];
}
