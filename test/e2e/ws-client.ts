import { inject } from 'vitest';
import { WebSocket } from 'ws';

export interface Frame {
  op: number;
  t?: string | null;
  s?: number | null;
  d?: unknown;
}

/** An op 0 frame: a dispatch with its name, sequence number and data. */
export interface Dispatch<D = Record<string, unknown>> {
  op: 0;
  t: string;
  s: number;
  d: D;
}

const WAIT_MS = 10_000;

/**
 * A plain `ws` client through the edge, identified as one user. It keeps every frame, and a cursor
 * so a test can read "what arrived since I last looked, up to this frame" without sleeping.
 */
export class GatewayClient {
  readonly frames: Frame[] = [];
  readonly closed: Promise<number>;
  ready!: Dispatch<{ user: { id: string }; relationships: unknown[]; auth_session_id_hash: string; session_id: string }>;
  private cursor = 0;
  private waiters = new Set<() => void>();
  private heartbeat: NodeJS.Timeout | undefined;
  private closeCode: number | undefined;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()) as Frame);
      for (const wake of this.waiters) wake();
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', (code) => {
        this.closeCode = code;
        clearInterval(this.heartbeat);
        for (const wake of this.waiters) wake();
        resolve(code);
      }),
    );
  }

  /**
   * Connects to `/gateway?v=10&encoding=json` (of the e2e system unless `origin` names another),
   * identifies with `token` (and `identify`'s further fields) and waits for READY.
   */
  static async connect(
    token: string,
    path = '/gateway?v=10&encoding=json',
    origin = inject('gatewayOrigin'),
    identify: Record<string, unknown> = {},
  ): Promise<GatewayClient> {
    const client = new GatewayClient(new WebSocket(`${origin.replace(/^http/, 'ws')}${path}`));
    const hello = (await client.waitFor((f) => f.op === 10)) as Frame & { d: { heartbeat_interval: number } };
    client.heartbeat = setInterval(() => client.send({ op: 1, d: client.lastSeq() }), hello.d.heartbeat_interval * 0.9);
    client.heartbeat.unref();
    client.send({ op: 2, d: { token, properties: { os: 'linux', browser: 'vitest', device: 'vitest' }, ...identify } });
    client.ready = (await client.waitFor((f) => f.t === 'READY')) as GatewayClient['ready'];
    client.cursor = client.frames.length;
    return client;
  }

  /** Resumes `sessionId` (op 6) from sequence number `seq` on a new connection and waits for RESUMED. */
  static async resume(token: string, sessionId: string, seq: number | null, origin = inject('gatewayOrigin')): Promise<GatewayClient> {
    const client = new GatewayClient(new WebSocket(`${origin.replace(/^http/, 'ws')}/gateway?v=10&encoding=json`));
    const hello = (await client.waitFor((f) => f.op === 10)) as Frame & { d: { heartbeat_interval: number } };
    client.heartbeat = setInterval(() => client.send({ op: 1, d: client.lastSeq() }), hello.d.heartbeat_interval * 0.9);
    client.heartbeat.unref();
    client.send({ op: 6, d: { token, session_id: sessionId, seq } });
    await client.waitFor((f) => f.t === 'RESUMED');
    return client;
  }

  /** The sequence number of the last dispatch received (what a resume starts from). */
  get seq(): number | null {
    return this.lastSeq();
  }

  /** Whether the server has closed this connection, and with which code. */
  get closeCodeIfClosed(): number | undefined {
    return this.closeCode;
  }

  send(frame: Frame): void {
    this.socket.send(JSON.stringify(frame));
  }

  /** Every dispatch received on this connection, READY included. */
  dispatches(): Dispatch[] {
    return this.frames.filter((f): f is Dispatch => f.op === 0);
  }

  /**
   * Waits for a dispatch after the cursor that matches, returns the dispatches that came before it
   * (after the cursor), and moves the cursor past it.
   */
  async takeThrough(match: (d: Dispatch) => boolean): Promise<Dispatch[]> {
    const start = this.cursor;
    const isMatch = (f: Frame, i: number) => i >= start && f.op === 0 && match(f as Dispatch);
    await this.waitFor(isMatch);
    const at = this.frames.findIndex(isMatch);
    this.cursor = at + 1;
    return this.frames.slice(start, at).filter((f): f is Dispatch => f.op === 0);
  }

  /** Closes with `code`: 1000 (the default) ends the session; a 4000-range code leaves it resumable. */
  close(code?: number): void {
    clearInterval(this.heartbeat);
    this.socket.close(code);
  }

  private lastSeq(): number | null {
    return this.dispatches().at(-1)?.s ?? null;
  }

  private waitFor(match: (f: Frame, index: number) => boolean): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.frames.find(match);
        if (found) return done(() => resolve(found));
        if (this.closeCode !== undefined) done(() => reject(new Error(`socket closed (${this.closeCode}) while waiting`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no matching frame within ${WAIT_MS} ms; last: ${JSON.stringify(this.frames.slice(-3))}`))),
        WAIT_MS,
      );
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        settle();
      };
      this.waiters.add(check);
      check();
    });
  }
}
