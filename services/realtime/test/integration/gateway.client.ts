import { constants, createInflate, inflateSync, type Inflate } from 'node:zlib';
import { WebSocket } from 'ws';

/** A frame from the gateway, as a client decodes it. */
export interface ServerFrame {
  op: number;
  d: unknown;
  s: number | null;
  t: string | null;
}

export interface ClientOptions {
  /** The query string, `v=9&encoding=json` unless given. */
  query?: string;
  /** How frames arrive: `zlib-stream` (one inflate context), `payload` (each binary frame inflated alone) or plain text. */
  inflate?: 'zlib-stream' | 'payload';
}

/**
 * A plain `ws` client that records every frame it receives, in order, and how the socket closed.
 * Tests wait on what they expect with `next()` and `closed`.
 */
export class GatewayClient {
  readonly frames: ServerFrame[] = [];
  /** Raw binary messages as received (zlib-stream tests look at their last bytes). */
  readonly binary: Buffer[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly waiters = new Set<() => void>();
  private inflater: Inflate | undefined;
  private inflated: Buffer[] = [];
  private cursor = 0;

  private constructor(
    readonly ws: WebSocket,
    options: ClientOptions,
  ) {
    if (options.inflate === 'zlib-stream') {
      this.inflater = createInflate({ flush: constants.Z_SYNC_FLUSH });
      this.inflater.on('data', (chunk: Buffer) => this.inflated.push(chunk));
    }
    ws.on('message', (data: Buffer, isBinary) => void this.receive(data, isBinary, options));
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    void this.closed.then(() => this.wake());
  }

  static async connect(url: string, options: ClientOptions = {}): Promise<GatewayClient> {
    const ws = new WebSocket(`${url}?${options.query ?? 'v=9&encoding=json'}`);
    const client = new GatewayClient(ws, options);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
    });
    return client;
  }

  /** Connects, waits for Hello, identifies and waits for READY. */
  static async ready(url: string, token: string, options: ClientOptions & { identify?: Record<string, unknown> } = {}) {
    const client = await GatewayClient.connect(url, options);
    await client.next((f) => f.op === 10);
    client.send(2, { token, properties: { os: 'Linux', browser: 'kith-tests' }, ...options.identify });
    const ready = await client.next((f) => f.t === 'READY');
    return { client, ready: ready.d as Record<string, unknown> & { session_id: string } };
  }

  send(op: number, d: unknown): void {
    this.ws.send(JSON.stringify({ op, d }));
  }

  sendRaw(data: string | Buffer): void {
    this.ws.send(data);
  }

  /** The next not-yet-taken frame matching `match` (frames before it are passed over). */
  async next(match: (frame: ServerFrame) => boolean = () => true, timeoutMs = 5000): Promise<ServerFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (; this.cursor < this.frames.length; this.cursor++) {
        const frame = this.frames[this.cursor]!;
        if (match(frame)) {
          this.cursor++;
          return frame;
        }
      }
      if (this.ws.readyState === WebSocket.CLOSED)
        throw new Error(`socket closed while waiting; got ${JSON.stringify(this.frames.slice(-3))}`);
      if (Date.now() >= deadline) throw new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames.slice(-3))}`);
      await this.wait(deadline - Date.now());
    }
  }

  /** Dispatches (op 0) received so far, READY excluded. */
  dispatches(): ServerFrame[] {
    return this.frames.filter((f) => f.op === 0 && f.t !== 'READY');
  }

  /** Drops the TCP connection without a close frame, as a lost network would. */
  drop(): void {
    this.ws.terminate();
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
  }

  private async receive(data: Buffer, isBinary: boolean, options: ClientOptions): Promise<void> {
    let text: string;
    if (!isBinary) text = data.toString('utf8');
    else {
      this.binary.push(data);
      if (options.inflate === 'payload') text = inflateSync(data).toString('utf8');
      else text = await this.inflateStream(data);
    }
    this.frames.push(JSON.parse(text) as ServerFrame);
    this.wake();
  }

  private inflateStream(data: Buffer): Promise<string> {
    const inflater = this.inflater!;
    return new Promise((resolve, reject) => {
      inflater.write(data, (err) => {
        if (err) return reject(err);
        const out = Buffer.concat(this.inflated).toString('utf8');
        this.inflated = [];
        resolve(out);
      });
    });
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
