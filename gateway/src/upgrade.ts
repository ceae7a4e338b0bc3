import { randomUUID } from 'node:crypto';
import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '@kith/platform';
import type { ClientIpResolver } from './client-ip.js';

const CONNECT_TIMEOUT_MS = 2_000;

export interface UpgradeDeps {
  logger: Logger;
  clientIp: ClientIpResolver;
  /** The realtime service's HTTP base URL; unset when it is not deployed. */
  realtimeUrl: string | undefined;
}

export interface UpgradeProxy {
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Cuts every relayed socket (the edge is going away; clients resume through another). */
  close(): void;
}

const STATUS_TEXT: Record<number, string> = { 404: 'Not Found', 502: 'Bad Gateway', 503: 'Service Unavailable' };

interface Reply {
  statusText?: string | undefined;
  contentType?: string | undefined;
  body?: Buffer;
}

/** A plain HTTP answer on the raw socket (no upgrade), after which the connection ends. */
function answer(socket: Duplex, status: number, requestId: string, reply: Reply = {}): void {
  const { statusText = STATUS_TEXT[status], contentType, body = Buffer.alloc(0) } = reply;
  const type = contentType ? `Content-Type: ${contentType}\r\n` : '';
  // Realtime down or refusing: the client is told when to come back, as for every 503 of the edge.
  const retry = status === 503 ? 'Retry-After: 1\r\n' : '';
  const lines = `HTTP/1.1 ${status} ${statusText}\r\nConnection: close\r\n${type}${retry}Content-Length: ${body.length}\r\nX-Request-Id: ${requestId}\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(lines), body]));
}

/** The client's upgrade request as realtime sees it: no internal or forwarding headers of the client's own. */
function upstreamHeaders(inbound: IncomingHttpHeaders, requestId: string, clientIp: string): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (const [key, value] of Object.entries(inbound)) {
    if (key.startsWith('x-internal-') || key === 'authorization' || key === 'x-forwarded-for' || key === 'x-request-id' || key === 'host')
      continue;
    headers[key] = value;
  }
  headers['x-request-id'] = requestId;
  headers['x-forwarded-for'] = clientIp;
  return headers;
}

/** The status line and headers of the upstream's answer, as raw bytes for the client. */
function head(res: IncomingMessage): string {
  let text = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n`;
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    if (!res.rawHeaders[i]!.toLowerCase().startsWith('x-internal-')) text += `${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}\r\n`;
  }
  return `${text}\r\n`;
}

/**
 * WebSocket upgrades on `/gateway` (and `/gateway/`, any query) are relayed to the realtime
 * service: the upgrade request goes there, its 101 comes back, and from then on the two sockets
 * are piped byte for byte. The edge reads no frame; realtime speaks the protocol.
 */
export function createUpgradeProxy(deps: UpgradeDeps): UpgradeProxy {
  const { logger } = deps;
  const tunnels = new Set<Duplex>();
  const target = deps.realtimeUrl ? new URL(deps.realtimeUrl) : undefined;

  function handle(req: IncomingMessage, socket: Duplex, clientHead: Buffer): void {
    const started = performance.now();
    const requestId = randomUUID();
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const pathname = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
    const done = (status: number) =>
      logger.info(
        { request_id: requestId, method: 'GET', path: pathname, upstream: 'realtime', status, ms: Math.round(performance.now() - started) },
        'upgrade',
      );
    socket.on('error', () => socket.destroy());

    if ((pathname !== '/gateway' && pathname !== '/gateway/') || !target) {
      done(404);
      return answer(socket, 404, requestId);
    }
    const clientIp = deps.clientIp.resolve(req.socket.remoteAddress, req.headers['x-forwarded-for']);
    const upstream = request({
      host: target.hostname,
      port: target.port || 80,
      method: 'GET',
      path: rawUrl,
      headers: upstreamHeaders(req.headers, requestId, clientIp),
      timeout: CONNECT_TIMEOUT_MS,
      // Its own connection: an upgraded socket never goes back to a pool.
      agent: false,
    });
    const fail = (status: number, reason: string) => {
      if (!socket.writable) return;
      logger.warn({ request_id: requestId, upstream: 'realtime', status, reason }, 'upstream failure');
      done(status);
      answer(socket, status, requestId);
    };
    upstream.on('timeout', () => upstream.destroy(new Error('upstream timed out')));
    upstream.on('error', (err: NodeJS.ErrnoException) =>
      fail(err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' ? 503 : 502, err.message),
    );
    // Not an upgrade (realtime refused it): its status and small body go back, then the connection ends.
    upstream.on('response', (res) => {
      const status = res.statusCode ?? 502;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        done(status);
        answer(socket, status, requestId, {
          statusText: res.statusMessage,
          contentType: res.headers['content-type'],
          body: Buffer.concat(chunks),
        });
      });
    });
    upstream.on('upgrade', (res, upstreamSocket: Socket, upstreamHead: Buffer) => {
      done(101);
      upstreamSocket.setTimeout(0);
      upstreamSocket.setNoDelay(true);
      req.socket.setNoDelay(true);
      socket.write(head(res));
      if (upstreamHead.length) socket.write(upstreamHead);
      if (clientHead.length) upstreamSocket.write(clientHead);
      upstreamSocket.pipe(socket).pipe(upstreamSocket);
      const cut = () => {
        tunnels.delete(socket);
        socket.destroy();
        upstreamSocket.destroy();
      };
      socket.on('close', cut);
      upstreamSocket.on('close', cut);
      upstreamSocket.on('error', cut);
      tunnels.add(socket);
    });
    upstream.end();
  }

  return {
    handle,
    close() {
      for (const socket of tunnels) socket.destroy();
      tunnels.clear();
    },
  };
}
