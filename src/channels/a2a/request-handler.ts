// The SDK's A2ARequestHandler for this agent: a message runs one skill and is answered by a completed task with a data artifact.
import { randomUUID } from 'node:crypto';
import { TaskState, type AgentCard, type Message, type Part, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import { PushNotificationNotSupportedError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { A2A_SKILLS, type A2ASkill } from '../../catalogue/a2a-skills.js';
import { runSkill, type A2ASkillDeps, type SkillResult } from './skills.js';

const JSON_TYPE = 'application/json';
const SKILL_IDS = new Set<string>(Object.values(A2A_SKILLS));

/**
 * Written against the SDK's handler interface rather than its DefaultRequestHandler: that one runs
 * an executor over an event bus and keeps every task in a store for follow-ups, streams and
 * resubscriptions, none of which the card offers (no streaming, no push, no state history); and it
 * turns an executor's failure into a `failed` task, where an evaluation that produced no verdict
 * must reach the client as an error (ARCHITECTURE.md "A2A channel").
 */
export class GuardrailRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly deps: A2ASkillDeps,
    private readonly card: () => AgentCard,
    private readonly now: () => number,
  ) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.card();
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new UnsupportedOperationError('This agent has no authenticated extended card.');
  }

  async sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    const message = params.message;
    if (!message) throw new RequestMalformedError('params.message is required.');
    const skill = skillOf(message);
    const result = await runSkill(this.deps, skill, dataOf(message, skill));
    return this.completed(message, result);
  }

  async *sendMessageStream(): AsyncGenerator<StreamResponse, void, undefined> {
    throw new UnsupportedOperationError('Streaming is not supported (capabilities.streaming is false); use SendMessage.');
  }

  async *resubscribe(): AsyncGenerator<StreamResponse, void, undefined> {
    throw new UnsupportedOperationError('Streaming is not supported (capabilities.streaming is false).');
  }

  async getTask(): Promise<Task> {
    throw keepsNoTasks();
  }

  async cancelTask(): Promise<Task> {
    throw keepsNoTasks();
  }

  async listTasks(): Promise<never> {
    throw new UnsupportedOperationError('This agent keeps no tasks to list.');
  }

  async createTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  async getTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  async listTaskPushNotificationConfigs(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  async deleteTaskPushNotificationConfig(): Promise<void> {
    throw new PushNotificationNotSupportedError();
  }

  /** A finished task holding the skill's answer as one JSON data artifact; it is not kept. */
  private completed(message: Message, result: SkillResult): Task {
    const part: Part = { content: { $case: 'data', value: result.data }, metadata: undefined, filename: '', mediaType: JSON_TYPE };
    return {
      id: randomUUID(),
      contextId: message.contextId || randomUUID(),
      status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: new Date(this.now()).toISOString() },
      artifacts: [{ artifactId: randomUUID(), name: result.name, description: '', parts: [part], metadata: undefined, extensions: [] }],
      history: [],
      metadata: undefined,
    };
  }
}

function keepsNoTasks(): Error {
  return new TaskNotFoundError('This agent keeps no tasks: each message is answered by a completed task in its response.');
}

/** `metadata.skill` names a skill of the card; without it the message is a trade to evaluate. */
function skillOf(message: Message): A2ASkill {
  const named = message.metadata?.skill;
  if (named === undefined) return A2A_SKILLS.evaluate;
  if (typeof named === 'string' && SKILL_IDS.has(named)) return named as A2ASkill;
  throw new RequestMalformedError(`metadata.skill must be one of ${[...SKILL_IDS].join(', ')}.`);
}

/** The one data part the skill reads; the registry listing takes none. */
function dataOf(message: Message, skill: A2ASkill): unknown {
  const data = message.parts.filter((part) => part.content?.$case === 'data');
  if (skill === A2A_SKILLS.assets && data.length === 0) return {};
  if (data.length !== 1 || message.parts.length !== 1) {
    throw new RequestMalformedError(`The message must carry exactly one part, a data part (${JSON_TYPE}) holding the ${skill} input.`);
  }
  return data[0]!.content!.value;
}
