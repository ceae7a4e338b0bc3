import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * The HTTP part of a development stand-in for an outside provider (payment gateway, age
 * verification): listens, knows the address browsers reach it at, and closes with its keep-alive
 * sockets, so a test's `close` never waits on an idle client.
 */
export abstract class LoopbackServer {
  /** Where browsers reach the server (no trailing slash); set by `listen`. */
  protected publicUrl = '';
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;

  /** Listens; `publicUrl` is where browsers reach it (default: the address it listens on). Answers the address. */
  async listen(port = 0, host = '127.0.0.1', publicUrl?: string): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(port, host, resolve));
    const address = this.server.address() as AddressInfo;
    const url = `http://${host}:${address.port}`;
    this.publicUrl = (publicUrl ?? url).replace(/\/+$/, '');
    return url;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
