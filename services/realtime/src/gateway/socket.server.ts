import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '@kith/platform';
import { GatewayConnection } from '../domain/connection.js';
import type { GatewayService } from '../domain/gateway.service.js';
import { CLOSE_REASONS, Close } from './protocol.js';
import { WsTransport } from './transport.js';

/** Client frames are small (Identify with presence is the largest); anything bigger is not a client of ours. */
const MAX_CLIENT_FRAME_BYTES = 16 * 1024;
const DEFAULT_VERSION = 9;

export interface GatewaySockets {
  /** New upgrades are refused with 503 from now on. */
  setDraining(): void;
  /** Ends every socket still open (after the gateway has told them to reconnect). */
  close(): Promise<void>;
}

/** `?v=9&encoding=json&compress=zlib-stream` → what the connection asked for. */
function connectionParams(url: URL) {
  const v = Number(url.searchParams.get('v') ?? DEFAULT_VERSION);
  return {
    version: Number.isInteger(v) && v > 0 && v < 100 ? v : DEFAULT_VERSION,
    encoding: url.searchParams.get('encoding') ?? 'json',
    zlibStream: url.searchParams.get('compress') === 'zlib-stream',
  };
}

/** The edge sets X-Forwarded-For to the client's address it resolved; without an edge, the peer. */
function clientIpOf(req: IncomingMessage): string {
  const forwarded = req.headers['x-forwarded-for'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  return first || req.socket.remoteAddress || '';
}

function refuse(socket: Duplex, status: 404 | 503): void {
  const text = status === 404 ? 'Not Found' : 'Service Unavailable';
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** Serves the gateway's WebSocket on `/gateway` (and `/gateway/`) of the service's HTTP server. */
export function attachGatewaySockets(server: Server, gateway: GatewayService, logger: Logger, replicaId: string): GatewaySockets {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false, maxPayload: MAX_CLIENT_FRAME_BYTES });
  const sockets = new Set<WebSocket>();
  let draining = false;
  // Connection ids own sessions in the store: unique across replicas and across restarts of one.
  const idPrefix = `${replicaId}:${randomBytes(4).toString('hex')}:`;
  let nextId = 0;

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://realtime');
    } catch {
      return refuse(socket, 404);
    }
    if (url.pathname !== '/gateway' && url.pathname !== '/gateway/') return refuse(socket, 404);
    if (draining) return refuse(socket, 503);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const params = connectionParams(url);
      ws.on('error', (err) => logger.debug({ err }, 'socket error'));
      if (params.encoding !== 'json') return ws.close(Close.DecodeError, CLOSE_REASONS[Close.DecodeError]);
      const transport = new WsTransport(ws, params.zlibStream, socket);
      const conn = new GatewayConnection(idPrefix + (nextId++).toString(36), transport, clientIpOf(req), params.version, Date.now());
      sockets.add(ws);
      ws.on('message', (data) => void gateway.receive(conn, data).catch((err: unknown) => logger.error({ err }, 'frame handling failed')));
      const opened = Date.now();
      ws.once('close', (code) => {
        sockets.delete(ws);
        transport.dispose();
        gateway.closed(conn, code);
        if (logger.isLevelEnabled('info')) logger.info({ conn: conn.id, code, ms: Date.now() - opened }, 'socket closed');
      });
      gateway.open(conn);
    });
  });

  return {
    setDraining: () => void (draining = true),
    async close() {
      // Close frames were sent; sockets whose clients do not answer within a moment are cut.
      const deadline = Date.now() + 1000;
      while (sockets.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      for (const ws of sockets) ws.terminate();
      wss.close();
    },
  };
}
