// The two shapes a tool call answers with: a result, or an `isError` result carrying `error` and its catalogue code.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * What a result built here carries beside its members, under symbols (which JSON.stringify and Object.keys skip): its
 * one text content, as built, and that text quoted when it was written beside it (null when not). A WeakMap did this
 * before; its entries cost the collector work for every result (issue 41).
 */
const TEXT_CONTENT = Symbol('text content');
const QUOTED = Symbol('quoted text');

type Built = CallToolResult & { [TEXT_CONTENT]?: unknown; [QUOTED]?: string | null };

function textResult(content: { type: 'text'; text: string }, structured: Record<string, unknown>, quoted: string | null, isError: boolean): CallToolResult {
  const made: Built = isError ? { content: [content], structuredContent: structured, isError: true } : { content: [content], structuredContent: structured };
  made[TEXT_CONTENT] = content;
  made[QUOTED] = quoted;
  return made;
}

/**
 * The spec's tool output as structured content, and the same JSON as text for clients that read text; `json` is that
 * JSON and its quoted form when the caller has written them already (a verdict, from its layout: verdict-text.ts).
 */
export function result(structured: Record<string, unknown>, json?: { text: string; quoted: string }): CallToolResult {
  return textResult({ type: 'text', text: json?.text ?? JSON.stringify(structured) }, structured, json?.quoted ?? null, false);
}

/** Spec: a failed tool carries an `error` string; MCP marks it isError. `extra` carries the `code`. */
export function failure(error: string, extra: Record<string, unknown> = {}): CallToolResult {
  const structured = { error, ...extra };
  return textResult({ type: 'text', text: JSON.stringify(structured) }, structured, null, true);
}

/**
 * JSON.stringify(result), byte for byte. For a result built above, with its one text content,
 * the structured content is written from that text instead of a second time: its JSON is that
 * text (issue 30), and the text's own JSON is its quoted form when one was written beside it.
 * Tools hand their results straight to the channel, and nothing changes one on the way; a test
 * holds the two forms equal for every tool's results and failures.
 */
export function resultJson(built: CallToolResult): string {
  const content = built.content[0];
  // Its own content, alone and unchanged: a result copied with other members or another content is written whole.
  const quoted = (built as Built)[QUOTED];
  if ((built as Built)[TEXT_CONTENT] !== content || quoted === undefined || built.content.length !== 1 || content?.type !== 'text'
    || Object.keys(built).length !== (built.isError ? 3 : 2)) {
    return JSON.stringify(built);
  }
  const text = quoted === null ? JSON.stringify(content.text) : `"${quoted}"`;
  return `{"content":[{"type":"text","text":${text}}],"structuredContent":${content.text}${built.isError ? ',"isError":true' : ''}}`;
}
