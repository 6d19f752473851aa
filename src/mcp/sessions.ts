// MCP sessions: at most N per client IP, closed after an idle period or by DELETE.
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { JsonTransport } from './json-transport.js';
import { offeredProtocolVersion } from './server.js';

export interface SessionLimits {
  perIp: number;
  idleMs: number;
}

export interface Session {
  id: string;
  ip: string;
  transport: JsonTransport;
  server: Server;
  lastSeen: number;
}

export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly limits: SessionLimits,
    private readonly createServer: () => Server,
    private readonly now: () => number,
  ) {
    // Unref'd: an idle sweep never keeps the process alive.
    this.sweeper = setInterval(() => void this.sweep(), Math.min(30_000, Math.max(1_000, limits.idleMs / 4)));
    this.sweeper.unref();
  }

  /** The live session with this id, marked as used now; undefined when unknown or expired. */
  use(id: string): Session | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (this.now() - session.lastSeen > this.limits.idleMs) {
      void this.close(id);
      return undefined;
    }
    session.lastSeen = this.now();
    return session;
  }

  countFor(ip: string): number {
    let count = 0;
    for (const session of this.sessions.values()) if (session.ip === ip) count += 1;
    return count;
  }

  /** A transport ready to answer an initialize request; it registers itself once the session exists. */
  async start(ip: string): Promise<{ transport: JsonTransport; server: Server }> {
    const server = this.createServer();
    const transport: JsonTransport = new JsonTransport({
      newSessionId: randomUUID,
      offeredVersion: offeredProtocolVersion,
      onSessionStarted: (id) => {
        this.sessions.set(id, { id, ip, transport, server, lastSeen: this.now() });
      },
      onSessionEnded: (id) => {
        this.sessions.delete(id);
      },
    });
    await server.connect(transport);
    return { transport, server };
  }

  async close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    await session.server.close().catch(() => undefined);
  }

  async sweep(): Promise<void> {
    const cutoff = this.now() - this.limits.idleMs;
    const idle = [...this.sessions.values()].filter((session) => session.lastSeen < cutoff);
    await Promise.all(idle.map((session) => this.close(session.id)));
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }
}
