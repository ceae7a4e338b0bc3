import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  ApiError,
  INTERNAL_IDENTITY_HEADER,
  REVOKED_SESSIONS_HEADER,
  UpstreamError,
  redactPath,
  type IdentitySigner,
  type Logger,
} from '@kith/platform';
import { credentialOf, formMatches } from './authorization.js';
import type { ClientIpResolver } from './client-ip.js';
import type { ClientSlots } from './client-slots.js';
import type { Cors } from './cors.js';
import type { Upstreams } from './proxy.js';
import type { EdgeRateLimits, Verdict } from './rate-limits.js';
import { BodyTimeoutError, ClientGoneError, receiveBody, type BodyLimits } from './request-body.js';
import { decodePath } from './request-path.js';
import { serviceFor, stripVersion } from './routes.table.js';
import type { TokenCache } from './token.cache.js';

export interface EdgeDeps {
  logger: Logger;
  signer: IdentitySigner;
  tokens: TokenCache;
  upstreams: Upstreams;
  clientIp: ClientIpResolver;
  cors: Cors;
  maxBodyBytes: number;
  bodies: BodyLimits;
  /** How many requests each client has in flight to the services. */
  slots: ClientSlots;
  /** Absent when rate limiting is turned off (RATE_LIMITING=off). */
  limits?: EdgeRateLimits;
  /** Answers `/readyz` of the edge itself (`/healthz` is always 200 while the process runs). */
  probes: { ready(): Promise<{ ready: boolean; dependencies: Record<string, string> }> };
}

/** How long a client is told to wait after a 503 of the edge's own (a service or auth not answering). */
const RETRY_AFTER_SECONDS = '1';

/** The platform's 429 with the verdict's headers. */
function refuse(res: ServerResponse, verdict: Verdict): void {
  for (const [name, value] of Object.entries({ ...verdict.headers, ...verdict.refused!.headers })) res.setHeader(name, value);
  sendJson(res, 429, verdict.refused!.body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.statusCode = status;
  if (status === 503) res.setHeader('retry-after', RETRY_AFTER_SECONDS);
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(payload));
  res.end(payload);
}

/**
 * The edge's request handler: probes, CORS, versioned path → service, one token check, a signed
 * identity for the service, and a streamed forward. Client-sent `X-Internal-*` never passes.
 */
export function createEdgeHandler(deps: EdgeDeps) {
  const { logger } = deps;
  return (req: IncomingMessage, res: ServerResponse): void => {
    const started = process.hrtime.bigint();
    const requestId = randomUUID();
    res.setHeader('x-request-id', requestId);
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const pathname = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
    let service = '-';
    if (logger.isLevelEnabled('info'))
      res.on('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        logger.info(
          {
            request_id: requestId,
            method: req.method,
            path: redactPath(pathname),
            upstream: service,
            status: res.statusCode,
            ms: Math.round(ms * 100) / 100,
          },
          'request',
        );
      });

    handle().catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (err instanceof ApiError) return sendJson(res, err.status, err.body);
      if (err instanceof ClientGoneError) return void res.destroy();
      if (err instanceof BodyTimeoutError) {
        // What is left of the body is never read: the connection cannot carry another request.
        res.setHeader('connection', 'close');
        return sendJson(res, 408, { code: 0, message: '408: Request Timeout' });
      }
      if (err instanceof UpstreamError) {
        logger.warn({ request_id: requestId, upstream: service, status: err.status, reason: err.message }, 'upstream failure');
        const text = { 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' }[err.status];
        return sendJson(res, err.status, { code: 0, message: `${err.status}: ${text}` });
      }
      logger.error({ request_id: requestId, err }, 'edge failure');
      sendJson(res, 500, { code: 0, message: '500: Internal Server Error' });
    });

    async function handle(): Promise<void> {
      if (pathname === '/healthz') return sendJson(res, 200, { status: 'ok' });
      if (pathname === '/readyz') {
        const { ready, dependencies } = await deps.probes.ready();
        return sendJson(res, ready ? 200 : 503, { status: ready ? 'ok' : 'draining', dependencies });
      }
      if (deps.cors.handle(req, res)) return;
      const decoded = decodePath(pathname);
      // Attachments are served outside the API's versions, as the platform's CDN serves them.
      const path = decoded === undefined ? undefined : decoded.startsWith('/attachments/') ? decoded : stripVersion(decoded);
      const target = path === undefined ? undefined : serviceFor(path);
      if (path === undefined || target === undefined || !deps.upstreams.has(target)) throw ApiError.notFound();
      service = target;
      const length = Number(req.headers['content-length'] ?? 0);
      if (length > deps.maxBodyBytes) return sendJson(res, 413, { code: 40005, message: 'Request entity too large' });

      const clientIp = deps.clientIp.resolve(req.socket.remoteAddress, req.headers['x-forwarded-for']);
      const limits = deps.limits;
      if (limits) {
        const blocked = limits.blocked(clientIp);
        if (blocked) return refuse(res, blocked);
        res.on('finish', () => {
          if (res.statusCode === 401 || res.statusCode === 403 || res.statusCode === 429) limits.recordInvalid(clientIp);
        });
      }
      const authorization = req.headers.authorization;
      let owner = null;
      if (authorization) {
        const credential = credentialOf(authorization);
        owner = await deps.tokens.resolve(credential.token, clientIp);
        if (!owner || !formMatches(credential.kind, owner)) throw ApiError.unauthorized();
      }
      if (limits) {
        const verdict = await limits.check(req.method ?? 'GET', path, {
          source: clientIp,
          userId: owner?.userId ?? null,
          sessionId: owner?.sessionId ?? null,
        });
        for (const [name, value] of Object.entries(verdict.headers)) res.setHeader(name, value);
        if (verdict.refused) return refuse(res, verdict);
      }
      const fingerprint = req.headers['x-fingerprint'];
      // No request id in the identity: it goes as x-request-id, so one signed token can serve many requests.
      const identity = deps.signer.signSync(
        {
          userId: owner?.userId ?? null,
          sessionId: owner?.sessionId ?? null,
          clientIp,
          fingerprint: typeof fingerprint === 'string' ? fingerprint.slice(0, 128) : null,
        },
        target,
      );
      const headers = outboundHeaders(req.headers, identity, requestId, clientIp);
      const body = await receiveBody(req, deps.bodies);
      if (Buffer.isBuffer(body)) {
        headers['content-length'] = String(body.length);
        delete headers['transfer-encoding'];
      }
      const slot = deps.slots.acquire(clientIp);
      if (slot === false) throw new UpstreamError(503, 'too many requests of this client in flight');
      if (slot !== true) await slot;
      try {
        // Gone while it waited for its turn: nothing to forward, nobody to answer.
        if (req.socket.destroyed) return void res.destroy();
        const request = { method: req.method ?? 'GET', path: path + (queryAt === -1 ? '' : rawUrl.slice(queryAt)), headers, body };
        await deps.upstreams.forward(target, request, res, (answer) => {
          const revoked = answer[REVOKED_SESSIONS_HEADER];
          if (typeof revoked === 'string') deps.tokens.revoke(revoked.split(','));
        });
      } finally {
        deps.slots.release(clientIp);
      }
    }
  };
}

/** What the service sees: the client's headers less credentials and any internal ones, plus ours. */
function outboundHeaders(inbound: IncomingHttpHeaders, identity: string, requestId: string, clientIp: string): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (const [key, value] of Object.entries(inbound)) {
    if (key.startsWith('x-internal-') || key === 'authorization' || key === 'x-forwarded-for' || key === 'x-request-id') continue;
    headers[key] = value;
  }
  headers[INTERNAL_IDENTITY_HEADER] = identity;
  headers['x-request-id'] = requestId;
  headers['x-forwarded-for'] = clientIp;
  return headers;
}
