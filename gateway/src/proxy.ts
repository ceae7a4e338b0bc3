import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import { UpstreamError } from '@kith/platform';
import { BodyTimeoutError, ClientGoneError } from './request-body.js';

/** Headers that describe one hop, never forwarded; and what only the edge may set. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

export interface UpstreamOptions {
  connections: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}

/** Keep-alive connection pools, one per service, that stream bodies both ways. */
export class Upstreams {
  private readonly pools = new Map<string, Pool>();

  constructor(
    urls: Record<string, string | undefined>,
    private readonly options: UpstreamOptions,
  ) {
    for (const [name, url] of Object.entries(urls)) {
      if (url)
        this.pools.set(
          name,
          new Pool(url, {
            connections: options.connections,
            pipelining: 1,
            keepAliveTimeout: 30_000,
            headersTimeout: options.headersTimeoutMs,
            bodyTimeout: options.bodyTimeoutMs,
            connectTimeout: 2_000,
          }),
        );
    }
  }

  has(name: string): boolean {
    return this.pools.has(name);
  }

  /**
   * Forwards the request to the service and streams its answer back. A refused connection is 503,
   * a timeout 504, anything else that breaks before the answer starts 502. `onAnswer` sees the
   * service's headers (internal ones included) before the client sees anything; internal headers
   * never reach the client.
   */
  async forward(
    name: string,
    request: { method: string; path: string; headers: IncomingHttpHeaders; body: Buffer | Readable | null },
    res: ServerResponse,
    onAnswer?: (headers: Record<string, string | string[] | undefined>) => void,
  ): Promise<void> {
    const pool = this.pools.get(name);
    if (!pool) throw new UpstreamError(503, `${name} is not configured`);
    const { method, path, headers, body } = request;
    let answered = false;
    try {
      // stream() writes the answer straight into the client's response as it arrives.
      await pool.stream(
        { method: method as Dispatcher.HttpMethod, path, headers: forwardable(headers), body },
        ({ statusCode, headers: answer }) => {
          answered = true;
          onAnswer?.(answer);
          res.statusCode = statusCode;
          for (const [key, value] of Object.entries(answer)) {
            if (value !== undefined && !HOP_BY_HOP.has(key) && !key.startsWith('x-internal-')) res.setHeader(key, value);
          }
          return res;
        },
      );
    } catch (err) {
      if (!answered) throw toUpstreamError(err);
      // The client went away or the service broke off mid-answer; the status is already sent.
      res.destroy();
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
  }
}

function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(key)) out[key] = value;
  }
  return out;
}

function toUpstreamError(err: unknown): Error {
  // The client's fault, not the service's: answered as such by the edge.
  if (err instanceof BodyTimeoutError || err instanceof ClientGoneError) return err;
  if (
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.ConnectTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError
  )
    return new UpstreamError(504, 'upstream timed out');
  const code = (err as { code?: string }).code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH')
    return new UpstreamError(503, 'upstream unavailable');
  return new UpstreamError(502, 'upstream failed');
}
