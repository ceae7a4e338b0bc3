import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP link with latency: a loopback proxy to `target` (`scheme://host:port`) that holds every
 * chunk, in each direction, for `delayMs` before passing it on, in order. A slow network between
 * two processes, for tests of what a slower peer must not break.
 */
export class SlowLink {
  private constructor(
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
    /** The target's URL with the proxy's port. */
    readonly url: string,
  ) {}

  static async start(target: string, delayMs: number): Promise<SlowLink> {
    const { protocol, hostname, port } = new URL(target);
    const sockets = new Set<Socket>();
    const server = createServer((client) => {
      const upstream = createConnection({ host: hostname, port: Number(port) });
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => {
          sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      // Timers of one duration fire in the order they were set: chunks keep their order.
      const pipe = (from: Socket, to: Socket) => from.on('data', (chunk) => setTimeout(() => to.writable && to.write(chunk), delayMs));
      pipe(client, upstream);
      pipe(upstream, client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port: local } = server.address() as { port: number };
    return new SlowLink(server, sockets, `${protocol}//127.0.0.1:${local}`);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
