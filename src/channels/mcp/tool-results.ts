// The two shapes a tool call answers with: a result, or an `isError` result carrying `error` and its catalogue code.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Results built here, whose one text content is the JSON of their structured content. */
const BUILT = new WeakSet<CallToolResult>();

/**
 * The spec's tool output as structured content, and the same JSON as text for clients that read text; `text` is that
 * JSON when the caller has written it already (a verdict, from its layout).
 */
export function result(structured: Record<string, unknown>, text = JSON.stringify(structured)): CallToolResult {
  const built: CallToolResult = { content: [{ type: 'text', text }], structuredContent: structured };
  BUILT.add(built);
  return built;
}

/** Spec: a failed tool carries an `error` string; MCP marks it isError. `extra` carries the `code`. */
export function failure(error: string, extra: Record<string, unknown> = {}): CallToolResult {
  const structured = { error, ...extra };
  const built: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, isError: true };
  BUILT.add(built);
  return built;
}

/**
 * JSON.stringify(result), byte for byte. For a result built above, with its one text content,
 * the structured content is written from that text instead of a second time: its JSON is that
 * text (issue 30). Tools hand their results straight to the channel, and nothing changes one
 * on the way; a test holds the two forms equal for every tool's results and failures.
 */
export function resultJson(built: CallToolResult): string {
  const [content, ...more] = built.content;
  if (!BUILT.has(built) || more.length > 0 || content?.type !== 'text' || Object.keys(built).length !== (built.isError ? 3 : 2)) return JSON.stringify(built);
  return `{"content":[{"type":"text","text":${JSON.stringify(content.text)}}],"structuredContent":${content.text}${built.isError ? ',"isError":true' : ''}}`;
}
