// Calls one MCP tool through the SDK's own client over streamable HTTP, as an agent would.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface ToolAnswer {
  isError: boolean;
  structured: Record<string, unknown>;
}

export async function callMcpTool(base: string, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const client = new Client({ name: 'guardrail-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp-http/mcp`));
  await client.connect(transport);
  try {
    // As agents do: listing the tools makes the client check every result against the tool's output schema.
    await client.listTools();
    const answer = await client.callTool({ name, arguments: args });
    return { isError: answer.isError === true, structured: answer.structuredContent as Record<string, unknown> };
  } finally {
    // Ends the session on the server (DELETE), so many calls never reach the per-IP session cap.
    await transport.terminateSession();
    await client.close();
  }
}
