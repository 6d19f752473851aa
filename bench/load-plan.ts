// The requests of one load run, described once: bench/analyze.lua builds them in wrk, requestAt() for autocannon and warm-ups.

/** A header sent on every request, and optionally the wallet that must go with it (a bearer token's own wallet). */
export interface Rotated {
  wallet: string | null;
  header: string;
  value: string;
}

export interface LoadPlan {
  url: string;
  asset: string;
  contract: string;
  /** Request n (from 1) evaluates wallet `offset + (cycle ? n % cycle : n)`, unless its rotation entry names one. */
  walletOffset: number;
  walletCycle: number;
  /** Wrap the trade as an MCP `tools/call evaluate_trade`. */
  mcp: boolean;
  /** Request n carries rotation[(n - 1) % length]. */
  rotation: Rotated[];
  /** The status every answer must carry (the edge's 404 to a path no route has); unset, any 2xx. */
  answers?: number;
}

export interface PlannedRequest {
  headers: Record<string, string>;
  body: string;
}

export const MCP_PROTOCOL_VERSION = '2025-06-18';
export const MCP_ACCEPT = 'application/json, text/event-stream';

export function walletAt(plan: LoadPlan, n: number): string {
  const index = plan.walletOffset + (plan.walletCycle > 0 ? n % plan.walletCycle : n);
  return `0x${index.toString(16).padStart(40, '0')}`;
}

/** The n-th request of the plan, byte for byte what analyze.lua sends as its n-th. */
export function requestAt(plan: LoadPlan, n: number): PlannedRequest {
  const rotated = plan.rotation.length > 0 ? plan.rotation[(n - 1 + plan.rotation.length) % plan.rotation.length] : null;
  const wallet = rotated?.wallet ?? walletAt(plan, n);
  const trade = `{"wallet":"${wallet}","asset":"${plan.asset}","contract_address":"${plan.contract}","side":"buy","amount":1}`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (rotated) headers[rotated.header] = rotated.value;
  if (!plan.mcp) return { headers, body: trade };
  headers.accept = MCP_ACCEPT;
  headers['mcp-protocol-version'] = MCP_PROTOCOL_VERSION;
  return { headers, body: `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"evaluate_trade","arguments":${trade}}}` };
}

/** The rotation as analyze.lua reads it: one entry a line, wallet (or "-"), header name and value, tab-separated. */
export function rotationFile(rotation: Rotated[]): string {
  return rotation.map((entry) => `${entry.wallet ?? '-'}\t${entry.header}\t${entry.value}\n`).join('');
}

/** The plan in analyze.lua's environment variables (the rotation goes in a file named by BENCH_ROTATION_FILE). */
export function planEnvironment(plan: LoadPlan): Record<string, string> {
  return {
    BENCH_ASSET: plan.asset,
    BENCH_CONTRACT: plan.contract,
    BENCH_WALLET_OFFSET: String(plan.walletOffset),
    BENCH_WALLET_CYCLE: String(plan.walletCycle),
    BENCH_MCP: plan.mcp ? '1' : '0',
    ...(plan.answers === undefined ? {} : { BENCH_ANSWERS: String(plan.answers) }),
  };
}
