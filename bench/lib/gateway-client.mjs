// A minimal client of the gateway protocol for benchmarks: connects, waits for op 10 Hello,
// identifies, resolves on READY, heartbeats at the interval Hello gave (first beat at a random
// point of the first interval, so thousands of sockets do not beat in step), and hands every
// dispatch (op 0) to a callback with the time it arrived. It checks what it can cheaply: `s`
// must grow by exactly one per dispatch (a repeat counts as a duplicate, a jump as a gap).
import WebSocket from 'ws';

const Op = { Dispatch: 0, Heartbeat: 1, Identify: 2, Reconnect: 7, InvalidSession: 9, Hello: 10, HeartbeatAck: 11 };

export class GatewayClient {
  /**
   * @param {string} url ws://…/gateway?v=10&encoding=json
   * @param {string} token
   * @param {{ onDispatch?: (t: string, d: any, arrivedAt: number, client: GatewayClient) => void, onClose?: (code: number, client: GatewayClient) => void }} [hooks]
   */
  constructor(url, token, hooks = {}) {
    this.url = url;
    this.token = token;
    this.hooks = hooks;
    this.ws = undefined;
    this.userId = undefined;
    this.sessionId = undefined;
    this.seq = null;
    this.ready = false;
    this.closed = false;
    this.closeCode = undefined;
    this.duplicates = 0;
    this.gaps = 0;
    this.acks = 0;
    this.beats = 0;
    this.reconnectsAsked = 0;
    this.timer = undefined;
  }

  /** Resolves once READY arrived; rejects on close or after `timeoutMs`. */
  connect(timeoutMs = 30_000) {
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (err) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        if (err) {
          this.close();
          reject(err);
        } else resolve(this);
      };
      const deadline = setTimeout(() => settle(new Error(`no READY within ${timeoutMs} ms`)), timeoutMs);
      const ws = new WebSocket(this.url, { perMessageDeflate: false });
      this.ws = ws;
      ws.on('error', (err) => settle(err));
      ws.on('close', (code) => {
        this.closed = true;
        this.closeCode = code;
        this.stopBeating();
        settle(new Error(`closed with ${code} before READY`));
        this.hooks.onClose?.(code, this);
      });
      ws.on('message', (data) => {
        const arrivedAt = performance.now();
        let frame;
        try {
          frame = JSON.parse(data.toString());
        } catch {
          return settle(new Error('undecodable frame'));
        }
        switch (frame.op) {
          case Op.Hello:
            this.startBeating(frame.d.heartbeat_interval);
            ws.send(
              JSON.stringify({ op: Op.Identify, d: { token: this.token, properties: { os: 'linux', browser: 'bench', device: 'bench' } } }),
            );
            return;
          case Op.HeartbeatAck:
            this.acks++;
            return;
          case Op.Reconnect:
            this.reconnectsAsked++;
            return;
          case Op.InvalidSession:
            return settle(new Error('invalid session'));
          case Op.Dispatch:
            if (this.seq !== null) {
              if (frame.s <= this.seq) this.duplicates++;
              else if (frame.s > this.seq + 1) this.gaps += frame.s - this.seq - 1;
            }
            if (this.seq === null || frame.s > this.seq) this.seq = frame.s;
            if (frame.t === 'READY') {
              this.userId = frame.d.user.id;
              this.sessionId = frame.d.session_id;
              this.ready = true;
              settle();
              return;
            }
            this.hooks.onDispatch?.(frame.t, frame.d, arrivedAt, this);
        }
      });
    });
  }

  startBeating(interval) {
    this.stopBeating();
    const beat = () => {
      if (this.ws?.readyState !== WebSocket.OPEN) return;
      this.beats++;
      this.ws.send(JSON.stringify({ op: Op.Heartbeat, d: this.seq }));
    };
    this.timer = setTimeout(
      () => {
        beat();
        this.timer = setInterval(beat, interval);
      },
      Math.floor(Math.random() * interval * 0.9),
    );
  }

  stopBeating() {
    clearTimeout(this.timer);
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Closes with 1000 (the session ends; it is not resumable). */
  close() {
    this.stopBeating();
    if (this.ws && this.ws.readyState !== WebSocket.CLOSED && this.ws.readyState !== WebSocket.CLOSING) this.ws.close(1000);
  }

  /** Resolves once the socket is closed (or after `ms`). */
  closedWithin(ms = 5_000) {
    if (!this.ws || this.ws.readyState === WebSocket.CLOSED) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.ws.terminate();
        resolve(false);
      }, ms);
      this.ws.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

/**
 * Opens `count` identified sockets with at most `parallel` identifies in flight; tokens are taken
 * round-robin. Each ready client is pushed onto `into` at once (so whoever cleans up can close
 * it); `stop()` returning true ends the opening early.
 */
export async function openSockets({
  url,
  tokens,
  count,
  parallel = 100,
  hooks,
  timeoutMs = 30_000,
  onProgress,
  into = [],
  stop = () => false,
}) {
  const clients = [];
  const failures = [];
  let next = 0;
  const worker = async () => {
    while (next < count && !stop()) {
      const i = next++;
      const client = new GatewayClient(url, tokens[i % tokens.length], hooks);
      try {
        await client.connect(timeoutMs);
        clients.push(client);
        into.push(client);
      } catch (err) {
        failures.push(err.message);
      }
      if ((clients.length + failures.length) % 500 === 0) onProgress?.(clients.length, failures.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  return { clients, failures };
}

/** Closes every client, `batch` at a time, waiting for each close. */
export async function closeSockets(clients, batch = 500) {
  for (let i = 0; i < clients.length; i += batch) {
    const slice = clients.slice(i, i + batch);
    for (const c of slice) c.close();
    await Promise.all(slice.map((c) => c.closedWithin(5_000)));
  }
}
