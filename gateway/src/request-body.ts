import type { IncomingMessage } from 'node:http';
import { PassThrough, Transform, type Readable } from 'node:stream';

export interface BodyLimits {
  /** Bodies up to this size are read in full before a connection to the service is taken. */
  bufferBytes: number;
  /** A body that sends nothing for this long is given up (408). */
  idleMs: number;
  /** A body read in full must be complete within this. */
  totalMs: number;
}

/** The client stopped sending its body, or sent it too slowly: a 408, and the connection is closed. */
export class BodyTimeoutError extends Error {
  constructor() {
    super('request body timed out');
    this.name = 'BodyTimeoutError';
  }
}

/** The client went away before its body was complete. */
export class ClientGoneError extends Error {
  constructor() {
    super('client went away during its body');
    this.name = 'ClientGoneError';
  }
}

const hasBody = (req: IncomingMessage): boolean =>
  req.method !== 'GET' &&
  req.method !== 'HEAD' &&
  (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined);

/**
 * The request's body, ready to forward: null when there is none; in memory when it is small, so a
 * client that sends it slowly holds nothing of the service's (no pooled connection waits on it);
 * otherwise a stream that fails with BodyTimeoutError should the client stall. A body without a
 * length is read into memory up to the limit and streamed from there on.
 */
export function receiveBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer | Readable | null> | Buffer | Readable | null {
  if (!hasBody(req)) return null;
  const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
  if (declared !== undefined && declared > limits.bufferBytes) return guarded(req, [], limits.idleMs);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      clearTimeout(total);
      // The error listener stays: a client that goes away after a 408 still makes its request emit one.
      req.off('data', onData).off('end', onEnd).off('close', onClose);
      outcome();
    };
    const onTimeout = () => done(() => reject(new BodyTimeoutError()));
    const idle = setTimeout(onTimeout, limits.idleMs);
    const total = setTimeout(onTimeout, limits.totalMs);
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      idle.refresh();
      if (size > limits.bufferBytes) {
        req.pause();
        done(() => resolve(guarded(req, chunks, limits.idleMs)));
      }
    };
    const onEnd = () => done(() => resolve(Buffer.concat(chunks, size)));
    const onGone = () => done(() => reject(new ClientGoneError()));
    const onClose = () => {
      if (!req.complete) onGone();
    };
    req.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onClose);
  });
}

/**
 * What is already read, then the rest of the body; destroyed with BodyTimeoutError when the client
 * stalls. Time the body waits on its reader (a service reading slowly, the client's turn not come
 * yet) is not the client's: the request is paused then, and the timer starts over.
 */
function guarded(req: IncomingMessage, head: Buffer[], idleMs: number): Readable {
  const out = new PassThrough();
  const timer = setTimeout(() => (req.isPaused() ? timer.refresh() : out.destroy(new BodyTimeoutError())), idleMs);
  req.on('end', () => clearTimeout(timer));
  const watch = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      timer.refresh();
      callback(null, chunk);
    },
  });
  out.on('close', () => clearTimeout(timer));
  // Seen by whoever reads the body (the forward); until then (its turn not come yet) it is dropped here.
  out.on('error', () => undefined);
  out.on('end', () => clearTimeout(timer));
  for (const chunk of head) out.write(chunk);
  req.on('error', (err) => out.destroy(err));
  req.on('close', () => {
    if (!req.complete) out.destroy(new ClientGoneError());
  });
  req.pipe(watch).pipe(out);
  return out;
}
