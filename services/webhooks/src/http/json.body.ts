import express, { type Request, type RequestHandler, type Response } from 'express';
import { ApiError, OverloadedError, jsonBodyParser } from '@kith/platform';

export interface JsonBodyLimits {
  /** The largest JSON (or form) body an execution takes; larger ones are a 40005. */
  maxBytes: number;
  /** Bytes of large bodies being read and parsed at once, across requests (memory stays bounded). */
  budgetBytes: number;
}

/** Bodies up to this size are read as every service reads its bodies, outside the budget. */
const SMALL_BODY_BYTES = 1024 * 1024;
/** Large bodies that may wait for their share of the budget, and for how long. */
const MAX_WAITING = 64;
const MAX_WAIT_MS = 10_000;

/** The routes that read their own bodies: executions (plain, chat tool, code host) and message edits. */
const EXECUTION = /^\/webhooks\/\d+\/[^/]+(\/(slack|github))?\/?$/;
const MESSAGE_EDIT = /^\/webhooks\/\d+\/[^/]+\/messages\/\d+\/?$/;

/** Whether the route reads this request's body itself (`JsonBodies.read`), after its token is checked. */
export const ownsJsonBody = (req: Request): boolean =>
  (req.method === 'POST' && EXECUTION.test(req.path)) || (req.method === 'PATCH' && MESSAGE_EDIT.test(req.path));

interface Waiter {
  bytes: number;
  start: () => void;
  timer: NodeJS.Timeout;
}

/**
 * A share of memory for bodies being parsed: `acquire` waits until the bytes asked for are free
 * (a body larger than the whole budget waits for all of it), in arrival order; a full line or a
 * long wait is an OverloadedError (503 with Retry-After).
 */
export class ByteBudget {
  private used = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly total: number) {}

  async acquire(asked: number): Promise<() => void> {
    const bytes = Math.min(asked, this.total);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.used -= bytes;
      this.pump();
    };
    if (this.waiting.length === 0 && this.used + bytes <= this.total) {
      this.used += bytes;
      return release;
    }
    if (this.waiting.length >= MAX_WAITING) throw new OverloadedError('large webhook bodies: line full', 1);
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        start: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new OverloadedError('large webhook bodies: waited too long', Math.ceil(MAX_WAIT_MS / 1000)));
        }, MAX_WAIT_MS),
      };
      this.waiting.push(waiter);
    });
    return release;
  }

  /** Bytes held now (tests, metrics). */
  get inUse(): number {
    return this.used;
  }

  private pump(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0]!.bytes <= this.total) {
      const next = this.waiting.shift()!;
      this.used += next.bytes;
      next.start();
    }
  }
}

const run = (handler: RequestHandler, req: Request, res: Response) =>
  new Promise<void>((resolve, reject) => void handler(req, res, (err?: unknown) => (err ? reject(err) : resolve())));

/**
 * The JSON (or urlencoded form) body of an execution, read once its token is known to be good.
 * Larger than the platform's bodies elsewhere (a code host's push of many commits is several
 * MiB), still bounded: a declared size over the limit is refused before a byte is read, a body
 * without one stops being read at the limit, and large bodies parse within a shared byte budget.
 */
export class JsonBodies {
  private readonly json: RequestHandler;
  private readonly form: RequestHandler;
  private readonly budget: ByteBudget;

  constructor(private readonly limits: JsonBodyLimits) {
    this.json = jsonBodyParser(limits.maxBytes);
    this.form = express.urlencoded({ extended: false, limit: limits.maxBytes, parameterLimit: 100 });
    this.budget = new ByteBudget(limits.budgetBytes);
  }

  async read(req: Request, res: Response): Promise<void> {
    const header = req.headers['content-length'];
    const declared = header === undefined ? undefined : Number(header);
    if (declared !== undefined && declared > this.limits.maxBytes) {
      // The rest of the body is never read: the connection cannot carry another request.
      res.setHeader('connection', 'close');
      throw ApiError.of('REQUEST_TOO_LARGE');
    }
    const large = declared === undefined ? req.headers['transfer-encoding'] !== undefined : declared > SMALL_BODY_BYTES;
    // The parsed body lives as long as the request: its share is given back when the answer is done.
    if (large) res.on('close', await this.budget.acquire(declared ?? this.limits.maxBytes));
    await run(this.json, req, res);
    await run(this.form, req, res);
  }
}
