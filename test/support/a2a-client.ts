// Sends one A2A message through the SDK's stock client (its default ClientFactory, from the agent card), as an agent would.
import { Role, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, RestTransportFactory } from '@a2a-js/sdk/client';

/**
 * What the agent answered: the completed task's one data artifact, or the error the client threw.
 * `rpcCode` is the JSON-RPC error code, `status` the HTTP+JSON binding's HTTP status; `metadata` is
 * the error info's (`code`, `detail`, `retry_after_seconds`), as it came over the wire.
 */
export type A2AAnswer =
  | { kind: 'task'; task: Task; artifact: string; data: Record<string, unknown> }
  | { kind: 'error'; name: string; rpcCode?: number; status?: number; message: string; code?: string; metadata: Record<string, string> };

/** `card`: the transport the card prefers (HTTP+JSON), as the default factory picks it; `JSONRPC`: a client forced to JSON-RPC. */
export type A2ATransport = 'card' | 'JSONRPC';

/** The stock client; forced to JSON-RPC when asked, with a fetch that notes the HTTP+JSON URLs called and the last error body. */
export async function a2aClient(base: string, transport: A2ATransport = 'card') {
  const wire: { urls: string[]; errorBody?: { error?: { details?: Array<{ metadata?: Record<string, string> }> } } } = { urls: [] };
  const observed: typeof fetch = async (input, init) => {
    wire.urls.push(String(input));
    const response = await fetch(input, init);
    if (!response.ok) wire.errorBody = await response.clone().json().catch(() => undefined);
    return response;
  };
  // The stock transports; the HTTP+JSON one only fetches through `observed`.
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new RestTransportFactory({ fetchImpl: observed })],
    preferredTransports: transport === 'JSONRPC' ? ['JSONRPC'] : undefined,
  });
  const client = await new ClientFactory(options).createFromUrl(base);
  return { client, wire };
}

export async function sendA2A(base: string, data: unknown, skill?: string, transport: A2ATransport = 'card'): Promise<A2AAnswer> {
  return (await sendA2AObserved(base, data, skill, transport)).answer;
}

/** sendA2A, with the HTTP+JSON URLs the client called. */
export async function sendA2AObserved(base: string, data: unknown, skill?: string, transport: A2ATransport = 'card'): Promise<{ answer: A2AAnswer; urls: string[] }> {
  const { client, wire } = await a2aClient(base, transport);
  return { answer: await answerOf(client, wire, data, skill), urls: wire.urls };
}

async function answerOf(client: Awaited<ReturnType<typeof a2aClient>>['client'], wire: Awaited<ReturnType<typeof a2aClient>>['wire'], data: unknown, skill?: string): Promise<A2AAnswer> {
  try {
    const answer = await client.sendMessage({ message: dataMessage(data, skill), configuration: undefined, metadata: undefined, tenant: '' });
    const task = answer as Task;
    const part = task.artifacts[0]!.parts[0]!;
    return { kind: 'task', task, artifact: task.artifacts[0]!.name, data: (part.content as { value: Record<string, unknown> }).value };
  } catch (error) {
    const failure = error as Error & { envelopeCode?: number; statusCode?: number; transport?: string; data?: Array<{ metadata?: Record<string, string> }> };
    if (failure.envelopeCode === undefined && failure.transport !== 'rest') throw error;
    const metadata = (failure.transport === 'rest' ? wire.errorBody?.error?.details?.[0]?.metadata : failure.data?.[0]?.metadata) ?? {};
    return {
      kind: 'error',
      name: failure.name,
      ...(failure.envelopeCode === undefined ? { status: failure.statusCode } : { rpcCode: failure.envelopeCode }),
      message: failure.message,
      code: metadata.code,
      metadata,
    };
  }
}

/** A user message whose one part is `data` (application/json); `skill` goes in its metadata. */
export function dataMessage(data: unknown, skill?: string): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'data', value: data }, metadata: undefined, filename: '', mediaType: 'application/json' }],
    metadata: skill === undefined ? undefined : { skill },
    extensions: [],
    referenceTaskIds: [],
  };
}
