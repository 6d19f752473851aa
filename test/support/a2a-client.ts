// Sends one A2A message through the SDK's stock client (its default ClientFactory, from the agent card), as an agent would.
import { Role, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';

/** What the agent answered: the completed task's one data artifact, or the error the client threw. */
export type A2AAnswer =
  | { kind: 'task'; task: Task; artifact: string; data: Record<string, unknown> }
  | { kind: 'error'; name: string; rpcCode: number; message: string; code?: string; metadata: Record<string, string> };

export async function sendA2A(base: string, data: unknown, skill?: string): Promise<A2AAnswer> {
  const client = await new ClientFactory().createFromUrl(base);
  try {
    const answer = await client.sendMessage({ message: dataMessage(data, skill), configuration: undefined, metadata: undefined, tenant: '' });
    const task = answer as Task;
    const part = task.artifacts[0]!.parts[0]!;
    return { kind: 'task', task, artifact: task.artifacts[0]!.name, data: (part.content as { value: Record<string, unknown> }).value };
  } catch (error) {
    const failure = error as Error & { envelopeCode?: number; data?: Array<{ metadata?: Record<string, string> }> };
    if (failure.envelopeCode === undefined) throw error;
    const metadata = failure.data?.[0]?.metadata ?? {};
    return { kind: 'error', name: failure.name, rpcCode: failure.envelopeCode, message: failure.message, code: metadata.code, metadata };
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
