// The two shapes a tool call answers with: a result, or an `isError` result carrying `error` and its catalogue code.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The spec's tool output as structured content, and the same JSON as text for clients that read text. */
export function result(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** Spec: a failed tool carries an `error` string; MCP marks it isError. `extra` carries the `code`. */
export function failure(error: string, extra: Record<string, unknown> = {}): CallToolResult {
  const structured = { error, ...extra };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, isError: true };
}
