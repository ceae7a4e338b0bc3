import { constants, createDeflate, deflateSync, type Deflate } from 'node:zlib';
import type { WebSocket } from 'ws';
import type { Transport } from '../domain/connection.js';

/**
 * `?compress=zlib-stream`: one deflate context for the whole connection; every frame is flushed
 * with Z_SYNC_FLUSH, so each message ends in 00 00 ff ff and the client inflates the stream
 * message by message. Frames are compressed one at a time so their order is kept.
 */
class ZlibStream {
  private readonly deflate: Deflate = createDeflate();
  private readonly queue: string[] = [];
  private chunks: Buffer[] = [];
  private busy = false;
  private onIdle: (() => void) | undefined;

  constructor(private readonly emit: (data: Buffer) => void) {
    this.deflate.on('data', (chunk: Buffer) => this.chunks.push(chunk));
  }

  push(frame: string): void {
    this.queue.push(frame);
    if (!this.busy) this.next();
  }

  /** Runs `fn` once every frame pushed so far has been emitted. */
  whenIdle(fn: () => void): void {
    if (!this.busy) return fn();
    this.onIdle = fn;
  }

  destroy(): void {
    this.deflate.destroy();
  }

  private next(): void {
    const frame = this.queue.shift();
    if (frame === undefined) {
      this.busy = false;
      const idle = this.onIdle;
      this.onIdle = undefined;
      return idle?.();
    }
    this.busy = true;
    this.deflate.write(frame);
    this.deflate.flush(constants.Z_SYNC_FLUSH, () => {
      const out = Buffer.concat(this.chunks);
      this.chunks = [];
      this.emit(out);
      this.next();
    });
  }
}

/** A ws socket as the gateway's transport: JSON text, or zlib-compressed binary when the client asked for it. */
export class WsTransport implements Transport {
  private readonly stream: ZlibStream | undefined;
  private eachFrame = false;

  constructor(
    private readonly ws: WebSocket,
    zlibStream: boolean,
    /** The socket under `ws`: corked while several frames are written, so they leave in one write. */
    private readonly socket?: { cork(): void; uncork(): void },
  ) {
    // Only a connection that asked for compression pays for a deflate context (~256 KiB).
    this.stream = zlibStream ? new ZlibStream((data) => this.write(data)) : undefined;
  }

  send(frame: string): void {
    if (this.stream) this.stream.push(frame);
    else if (this.eachFrame) this.write(deflateSync(frame));
    else this.write(frame);
  }

  together(fn: () => void): void {
    // A zlib stream emits its frames later, one by one: nothing to hold.
    if (!this.socket || this.stream) return fn();
    this.socket.cork();
    try {
      fn();
    } finally {
      this.socket.uncork();
    }
  }

  compressEachFrame(): void {
    // Transport compression already covers every frame; compressing twice helps no one.
    if (!this.stream) this.eachFrame = true;
  }

  close(code: number, reason: string): void {
    const close = () => {
      this.stream?.destroy();
      this.ws.close(code, reason);
    };
    if (this.stream) this.stream.whenIdle(close);
    else close();
  }

  /** The socket is gone: frees the deflate context at once. */
  dispose(): void {
    this.stream?.destroy();
  }

  private write(data: string | Buffer): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(data);
  }
}
