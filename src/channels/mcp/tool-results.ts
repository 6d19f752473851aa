// The two shapes a tool call answers with: a result, or an `isError` result carrying `error` and its catalogue code.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Results built here, whose one text content is the JSON of their structured content, with that text quoted when it was written beside it. */
const BUILT = new WeakMap<CallToolResult, string | null>();

/**
 * The spec's tool output as structured content, and the same JSON as text for clients that read text; `json` is that
 * JSON and its quoted form when the caller has written them already (a verdict, from its layout: verdict-text.ts).
 */
export function result(structured: Record<string, unknown>, json?: { text: string; quoted: string }): CallToolResult {
  const built: CallToolResult = { content: [{ type: 'text', text: json?.text ?? JSON.stringify(structured) }], structuredContent: structured };
  BUILT.set(built, json?.quoted ?? null);
  return built;
}

/** Spec: a failed tool carries an `error` string; MCP marks it isError. `extra` carries the `code`. */
export function failure(error: string, extra: Record<string, unknown> = {}): CallToolResult {
  const structured = { error, ...extra };
  const built: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, isError: true };
  BUILT.set(built, null);
  return built;
}

/**
 * JSON.stringify(result), byte for byte. For a result built above, with its one text content,
 * the structured content is written from that text instead of a second time: its JSON is that
 * text (issue 30), and the text's own JSON is its quoted form when one was written beside it.
 * Tools hand their results straight to the channel, and nothing changes one on the way; a test
 * holds the two forms equal for every tool's results and failures.
 */
export function resultJson(built: CallToolResult): string {
  const [content, ...more] = built.content;
  const quoted = BUILT.get(built);
  if (quoted === undefined || more.length > 0 || content?.type !== 'text' || Object.keys(built).length !== (built.isError ? 3 : 2)) return JSON.stringify(built);
  const text = quoted === null ? JSON.stringify(content.text) : `"${quoted}"`;
  return `{"content":[{"type":"text","text":${text}}],"structuredContent":${content.text}${built.isError ? ',"isError":true' : ''}}`;
}
