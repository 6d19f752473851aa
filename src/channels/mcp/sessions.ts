// MCP sessions: at most N per client IP and M in all, each bound to the address that opened it, closed after an idle period, by DELETE, or to make room.
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { sessionToEvict } from './fair-share.js';
import { JsonTransport } from './json-transport.js';
import { offeredProtocolVersion, type DirectToolCall } from './server.js';

export interface SessionLimits {
  perIp: number;
  /** Across all clients: each session holds an SDK server (about 93 kB), and addresses are cheap. */
  max: number;
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
    /** Plain tools/call requests, answered without the session's SDK server. */
    private readonly direct?: DirectToolCall,
  ) {
    // Unref'd: an idle sweep never keeps the process alive.
    this.sweeper = setInterval(() => void this.sweep(), Math.min(30_000, Math.max(1_000, limits.idleMs / 4)));
    this.sweeper.unref();
  }

  /** Initializations under way, per IP and in all: counted against the caps before their session exists. */
  private readonly starting = new Map<string, number>();
  private startingTotal = 0;

  /**
   * The live session with this id, marked as used now; undefined when unknown, expired, or opened
   * from another address: a session id seen elsewhere (a log, a proxy) does not carry the session.
   */
  use(id: string, ip: string): Session | undefined {
    const session = this.sessions.get(id);
    if (!session || session.ip !== ip) return undefined;
    if (this.now() - session.lastSeen > this.limits.idleMs) {
      void this.close(id);
      return undefined;
    }
    session.lastSeen = this.now();
    return session;
  }

  countFor(ip: string): number {
    let count = this.starting.get(ip) ?? 0;
    for (const session of this.sessions.values()) if (session.ip === ip) count += 1;
    return count;
  }

  /** Open sessions and initializations under way, across all clients. */
  total(): number {
    return this.sessions.size + this.startingTotal;
  }

  /** When the least recently used session will have idled out: the earliest a slot frees without a DELETE. */
  msUntilOneFrees(): number {
    let oldest = Infinity;
    for (const session of this.sessions.values()) oldest = Math.min(oldest, session.lastSeen);
    return oldest === Infinity ? 0 : Math.max(0, oldest + this.limits.idleMs - this.now());
  }

  /**
   * In a full table, closes the session a newcomer from `ip` displaces (`fair-share.ts`); false when
   * there is none, because this address already holds as many as any other. Its next call is then
   * answered as an expired session.
   */
  makeRoomFor(ip: string): boolean {
    const victim = sessionToEvict(this.sessions.values(), ip, this.starting);
    if (!victim) return false;
    void this.close(victim.id);
    return true;
  }

  /**
   * A transport ready to answer an initialize request; it registers itself once the session exists.
   * Counted from this call until `done()`, so concurrent initializations cannot pass a cap together.
   */
  async start(ip: string): Promise<{ transport: JsonTransport; server: Server; done: () => void }> {
    this.starting.set(ip, (this.starting.get(ip) ?? 0) + 1);
    this.startingTotal += 1;
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      this.startingTotal -= 1;
      const left = (this.starting.get(ip) ?? 1) - 1;
      if (left === 0) this.starting.delete(ip);
      else this.starting.set(ip, left);
    };
    try {
      return { ...(await this.connect(ip)), done };
    } catch (error) {
      done();
      throw error;
    }
  }

  private async connect(ip: string): Promise<{ transport: JsonTransport; server: Server }> {
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
      direct: this.direct,
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
