// A2A 0.3's HTTP+JSON wire: the proto-JSON of 0.3's a2a.proto, to and from the 0.3 objects the SDK's LegacyRestTransportHandler takes.
import type { LegacyRestTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { RequestMalformedError } from '@a2a-js/sdk/errors';

/**
 * The SDK ships the 0.3 REST transport handler (0.3 objects in, 0.3 objects out, the request
 * handler in between) and a 0.3 REST client (`LegacyRestTransport`), but not the proto-JSON codecs
 * its Express router puts between the wire and that handler. This file is those codecs, field for
 * field as the client writes and reads them (ARCHITECTURE.md "A2A channel"): a SendMessageRequest
 * `{message: {messageId, role: "ROLE_USER", content: [{text} | {data: {data}} | {file}]}}` in, a
 * SendMessageResponse `{task}` or `{message}` out.
 */
export type LegacySendParams = Parameters<LegacyRestTransportHandler['sendMessage']>[0];
export type LegacyResult = Awaited<ReturnType<LegacyRestTransportHandler['sendMessage']>>;
type LegacyMessage = LegacySendParams['message'];
type LegacyPart = LegacyMessage['parts'][number];
type LegacyTask = Extract<LegacyResult, { kind: 'task' }>;
type Json = Record<string, unknown>;

const ROLES: Record<string, LegacyMessage['role']> = { ROLE_USER: 'user', '1': 'user', ROLE_AGENT: 'agent', '2': 'agent' };
const STATES: Record<LegacyTask['status']['state'], string> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELLED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};

/** A SendMessageRequest body as MessageSendParams; `request` is the proto field `message` is the JSON name of. */
export function decodeSendParams(body: unknown): LegacySendParams {
  if (!isObject(body)) throw new RequestMalformedError('The body must be a SendMessageRequest object: {"message": {...}}.');
  const message = body.message ?? body.request;
  if (!isObject(message)) throw new RequestMalformedError('message is required: {"message": {"messageId", "role", "content": [...]}}.');
  const configuration = isObject(body.configuration) ? body.configuration : undefined;
  return {
    message: decodeMessage(message),
    configuration: configuration && {
      blocking: configuration.blocking === true,
      acceptedOutputModes: strings(configuration.acceptedOutputModes),
    },
    metadata: isObject(body.metadata) ? body.metadata : undefined,
  };
}

/** The handler's answer as a SendMessageResponse body. */
export function encodeSendResult(result: LegacyResult): Json {
  return result.kind === 'task' ? { task: encodeTask(result) } : { message: encodeMessage(result) };
}

function decodeMessage(message: Json): LegacyMessage {
  const role = ROLES[String(message.role)];
  if (!role) throw new RequestMalformedError(`message.role must be ROLE_USER or ROLE_AGENT; got ${JSON.stringify(message.role ?? null)}.`);
  const content = Array.isArray(message.content) ? message.content : [];
  return {
    kind: 'message',
    messageId: typeof message.messageId === 'string' ? message.messageId : '',
    contextId: typeof message.contextId === 'string' && message.contextId ? message.contextId : undefined,
    taskId: typeof message.taskId === 'string' && message.taskId ? message.taskId : undefined,
    role,
    parts: content.map((part, index) => decodePart(part, index)),
    metadata: isObject(message.metadata) ? message.metadata : undefined,
    extensions: strings(message.extensions),
  };
}

function decodePart(part: unknown, index: number): LegacyPart {
  if (isObject(part) && typeof part.text === 'string') return { kind: 'text', text: part.text };
  if (isObject(part) && isObject(part.data)) return { kind: 'data', data: isObject(part.data.data) ? part.data.data : {} };
  if (isObject(part) && isObject(part.file)) {
    const mimeType = typeof part.file.mimeType === 'string' ? part.file.mimeType : undefined;
    if (typeof part.file.fileWithUri === 'string') return { kind: 'file', file: { uri: part.file.fileWithUri, mimeType } };
    if (typeof part.file.fileWithBytes === 'string') return { kind: 'file', file: { bytes: part.file.fileWithBytes, mimeType } };
  }
  throw new RequestMalformedError(`message.content[${index}] must be a part: {"text": ...}, {"data": {"data": {...}}} or {"file": {...}}.`);
}

function encodeMessage(message: LegacyMessage): Json {
  return {
    messageId: message.messageId,
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.taskId ? { taskId: message.taskId } : {}),
    role: message.role === 'agent' ? 'ROLE_AGENT' : 'ROLE_USER',
    content: message.parts.map(encodePart),
    ...(message.metadata ? { metadata: message.metadata } : {}),
    ...(message.extensions?.length ? { extensions: message.extensions } : {}),
  };
}

/** A Task as the 0.3 proto-JSON GetTask and CancelTask answer. */
export function encodeTask(task: LegacyTask): Json {
  const { state, message, timestamp } = task.status;
  return {
    id: task.id,
    contextId: task.contextId,
    status: { state: STATES[state], ...(message ? { message: encodeMessage(message) } : {}), ...(timestamp ? { timestamp } : {}) },
    artifacts: (task.artifacts ?? []).map((artifact) => ({
      artifactId: artifact.artifactId,
      ...(artifact.name ? { name: artifact.name } : {}),
      ...(artifact.description ? { description: artifact.description } : {}),
      parts: artifact.parts.map(encodePart),
      ...(artifact.metadata ? { metadata: artifact.metadata } : {}),
      ...(artifact.extensions?.length ? { extensions: artifact.extensions } : {}),
    })),
    history: (task.history ?? []).map(encodeMessage),
    ...(task.metadata ? { metadata: task.metadata } : {}),
  };
}

function encodePart(part: LegacyPart): Json {
  switch (part.kind) {
    case 'text':
      return { text: part.text };
    case 'data':
      return { data: { data: part.data } };
    case 'file':
      return 'uri' in part.file
        ? { file: { fileWithUri: part.file.uri, mimeType: part.file.mimeType ?? '' } }
        : { file: { fileWithBytes: part.file.bytes, mimeType: part.file.mimeType ?? '' } };
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
