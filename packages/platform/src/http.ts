import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, {
  type ErrorRequestHandler,
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { z } from 'zod';
import { requestContext } from './context.js';
import { ApiError, INTERNAL_ERROR_BODY, OverloadedError, formErrorAt, formErrorFromZod, isStoreUnavailable } from './errors.js';
import { UpstreamError } from './grpc.js';
import { INTERNAL_IDENTITY_HEADER, type Identity, type IdentityVerifier } from './identity.js';
import { nestsDeeperThan } from './json-depth.js';
import { redactPath, type Logger } from './logger.js';

/** A dependency the service needs to do its work; `/readyz` fails while any does not answer. */
export type ReadinessCheck = () => Promise<unknown>;

export interface ServiceAppOptions {
  logger: Logger;
  verifier: IdentityVerifier;
  readiness: Record<string, ReadinessCheck>;
  /** Largest JSON body accepted. */
  bodyLimit?: string;
  /**
   * Every route needs a user: a request without one is a 401 before its input is read, as the
   * platform answers (a route that checks its body first would say 50035). Unknown paths and
   * methods stay 404 and 405. Services with public routes leave this off and call `userIdOf`
   * before `parse`.
   */
  requireUser?: boolean;
  /**
   * Requests whose JSON body the service reads itself, in its route (with `jsonBodyParser` and a
   * larger limit, after checks of its own): the app-wide parser leaves them unread.
   */
  ownJsonBody?: (req: Request) => boolean;
  routes: (app: Express) => void;
}

declare module 'express-serve-static-core' {
  interface Locals {
    identity: Identity;
  }
}

/** The verified caller of this request. Routes behind the identity check always have one. */
export const identityOf = (res: Response): Identity => res.locals.identity;

/** The signed-in user's id, or a 401 for a route that needs a signed-in user. */
export function userIdOf(res: Response): string {
  const userId = res.locals.identity.userId;
  if (!userId) throw ApiError.unauthorized();
  return userId;
}

/** Parses a request part with a schema, or throws the platform's 50035 form error. */
export function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const input = value ?? {};
  const unstorable: (string | number)[][] = [];
  findUnstorable(input, [], unstorable, 0);
  if (unstorable.length > 0)
    throw formErrorAt(unstorable.map((path) => ({ path, error: { code: 'BASE_TYPE_INVALID', message: 'Invalid character.' } })));
  const result = schema.safeParse(input);
  if (!result.success) throw formErrorFromZod(result.error, input);
  return result.data;
}

const READINESS_TIMEOUT_MS = 1000;

async function probe(checks: Record<string, ReadinessCheck>): Promise<Record<string, string>> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          check(),
          new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), READINESS_TIMEOUT_MS))),
        ]);
        return [name, 'ok'] as const;
      } catch (err) {
        return [name, err instanceof Error ? err.message : 'failed'] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return Object.fromEntries(entries);
}

/**
 * The express app every service serves: probes, the internal identity check, JSON bodies, one log
 * line per request, the platform's 404 and the one error mapping. `routes` adds the service's own.
 */
export function createServiceApp(opts: ServiceAppOptions): { app: Express; setDraining(): void } {
  const { logger } = opts;
  let draining = false;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');

  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    const checks = await probe(opts.readiness);
    const ready = !draining && Object.values(checks).every((v) => v === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : draining ? 'draining' : 'unavailable', checks });
  });

  app.use(requestLog(logger));
  app.use(identityCheck(opts.verifier));
  if (opts.requireUser) app.use(userRequired(app));
  const json = jsonBodyParser(opts.bodyLimit ?? '1mb');
  const ownJsonBody = opts.ownJsonBody;
  app.use(ownJsonBody ? (req, res, next) => (ownJsonBody(req) ? next() : json(req, res, next)) : json);
  opts.routes(app);
  app.use(notFoundOrMethodNotAllowed(app));
  app.use(errorHandler(logger));
  return { app, setDraining: () => void (draining = true) };
}

/** The JSON body parser of every service (size limit, nesting and charset checks); errors map in `toHttpError`. */
export function jsonBodyParser(limit: string | number): RequestHandler {
  return express.json({ limit, strict: false, type: ['application/json', 'application/*+json'], verify: refuseDeepNesting });
}

/** Deeper than any body of the platform's API nests (embeds, components: under ten levels). */
export const MAX_JSON_DEPTH = 32;

/**
 * express.json's check of the raw body, before the text is parsed: nesting past the limit is the
 * platform's 50035. JSON travels in UTF-8 (RFC 8259 §8.1); the check reads its bytes, so a body in
 * another Unicode encoding (which the parser would otherwise take) is a 415.
 */
function refuseDeepNesting(_req: unknown, _res: unknown, body: Buffer, encoding: string): void {
  if (encoding !== 'utf-8' && encoding !== 'utf8')
    throw Object.assign(new Error(`unsupported charset ${encoding}`), { status: 415, type: 'charset.unsupported' });
  // body-parser copies its own `body` (the raw bytes) onto what is thrown: mapped in toHttpError.
  if (nestsDeeperThan(body, MAX_JSON_DEPTH))
    throw Object.assign(new Error('JSON nested too deep'), { status: 400, type: 'entity.too.deep' });
}

const TOO_DEEP = formErrorAt([
  { path: [], error: { code: 'JSON_TOO_DEEP', message: `Must be nested ${MAX_JSON_DEPTH} or fewer levels deep.` } },
]).body;

/**
 * Text PostgreSQL cannot store: a NUL character, or half of a UTF-16 surrogate pair (JSON carries
 * both as escapes; text columns refuse the first, jsonb both). `parse` refuses it in whatever it is
 * given (every route's body, query and params go through it), as a form error at each field that
 * holds one, before the schema: one check instead of one per text field (a missed one was a 500).
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const MAX_REPORTED = 20;

function findUnstorable(value: unknown, path: (string | number)[], found: (string | number)[][], depth: number): void {
  if (found.length >= MAX_REPORTED) return;
  if (typeof value === 'string') {
    if (UNSTORABLE_TEXT.test(value)) found.push(path);
  } else if (Array.isArray(value)) {
    // express.json caps a body's size, and with it how deep this can go; the bound is for safety.
    if (depth < 64) value.forEach((item, i) => findUnstorable(item, [...path, i], found, depth + 1));
  } else if (value !== null && typeof value === 'object' && depth < 64) {
    for (const [key, item] of Object.entries(value)) {
      if (UNSTORABLE_TEXT.test(key)) found.push([...path, key]);
      else findUnstorable(item, [...path, key], found, depth + 1);
      if (found.length >= MAX_REPORTED) return;
    }
  }
}

interface RouteLayer {
  route?: { methods: Record<string, boolean | undefined> };
  match(path: string): boolean;
}
const routeLayers = (app: Express): RouteLayer[] => (app.router as unknown as { stack: RouteLayer[] }).stack;

/** An unknown path is the platform's 404; a known path with another method its 405. */
function notFoundOrMethodNotAllowed(app: Express): RequestHandler {
  return (req, _res, next) => {
    const known = routeLayers(app).some((layer) => layer.route !== undefined && layer.match(req.path));
    next(known ? ApiError.methodNotAllowed() : ApiError.notFound());
  };
}

/** A 401 for a request without a user to a route that exists (see `requireUser`). */
function userRequired(app: Express): RequestHandler {
  return (req, res, next) => {
    if (res.locals.identity.userId) return next();
    const verb = req.method.toLowerCase();
    const served = routeLayers(app).some((layer) => {
      const methods = layer.route?.methods;
      return methods !== undefined && Boolean(methods[verb] ?? methods._all ?? (verb === 'head' && methods.get)) && layer.match(req.path);
    });
    next(served ? ApiError.unauthorized() : undefined);
  };
}

/** The edge's request id, which it sets on every request and strips from clients. */
const REQUEST_ID_HEADER = 'x-request-id';

function identityCheck(verifier: IdentityVerifier): RequestHandler {
  return (req, res, next) => {
    const header = req.headers[INTERNAL_IDENTITY_HEADER];
    let identity: Identity;
    try {
      identity = verifier.verifySync(typeof header === 'string' ? header : undefined);
    } catch (err) {
      return next(err);
    }
    // The edge reuses a signed identity across requests, so the request id travels beside it.
    const requestId = req.headers[REQUEST_ID_HEADER];
    if (!identity.requestId && typeof requestId === 'string') identity.requestId = requestId.slice(0, 128);
    res.locals.identity = identity;
    requestContext.run({ requestId: identity.requestId }, next);
  };
}

function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (!logger.isLevelEnabled('info')) return next();
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // 'finish' fires outside the request's async context, so the request id is named here.
      const requestId = (res.locals.identity as { requestId?: string } | undefined)?.requestId;
      logger.info(
        { request_id: requestId, method: req.method, path: redactPath(req.path), status: res.statusCode, ms: Math.round(ms * 100) / 100 },
        'request',
      );
    });
    next();
  };
}

/** Maps every error to the platform's body, once. Unexpected errors are a bare 500, logged. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const { status, body } = toHttpError(err, logger);
    if (res.headersSent) return void res.end();
    // A store that is down or out of connections, or too much work at once, passes by itself: tell the client when to retry.
    if (status === 503) res.setHeader('Retry-After', String(err instanceof OverloadedError ? err.retryAfterSeconds : 1));
    res.status(status).json(body);
  };
}

export function toHttpError(err: unknown, logger: Logger): { status: number; body: object } {
  if (err instanceof ApiError) return { status: err.status, body: err.body };
  if (err instanceof UpstreamError) return { status: err.status, body: { code: 0, message: `${err.status}: ${statusText(err.status)}` } };
  const e = err as { type?: string; status?: number };
  if (e?.type === 'entity.parse.failed') return { status: 400, body: ApiError.of('INVALID_JSON').body };
  if (e?.type === 'entity.too.deep') return { status: 400, body: TOO_DEEP };
  if (e?.type === 'entity.too.large') return { status: 413, body: { code: 40005, message: 'Request entity too large' } };
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported')
    return { status: 415, body: { code: 0, message: '415: Unsupported Media Type' } };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500)
    return { status: 400, body: { code: 50035, message: 'Invalid Form Body' } };
  if (err instanceof OverloadedError) {
    logger.warn({ reason: err.message }, 'overloaded');
    return { status: 503, body: { code: 0, message: '503: Service Unavailable' } };
  }
  if (isStoreUnavailable(err)) {
    logger.error({ err }, 'store unavailable');
    return { status: 503, body: { code: 0, message: '503: Service Unavailable' } };
  }
  logger.error({ err }, 'unhandled error');
  return { status: 500, body: INTERNAL_ERROR_BODY };
}

function statusText(status: number): string {
  return ({ 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' } as Record<number, string>)[status] ?? 'Error';
}

/** Listens on host:port; resolves with the bound port (0 picks a free one). */
export async function listen(
  app: Express | Parameters<typeof createServer>[1],
  port: number,
  host = '127.0.0.1',
): Promise<{ server: Server; port: number }> {
  const server = createServer(app as Parameters<typeof createServer>[1]);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/** Stops accepting, lets requests in flight finish (bounded), then closes idle keep-alive sockets. */
export function closeHttpServer(server: Server, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
