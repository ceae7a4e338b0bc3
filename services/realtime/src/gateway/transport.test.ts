import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { WsTransport } from './transport.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A loopback ws pair: `run` gets the server side's transport (over the upgraded socket) once the client is open. */
async function received(count: number, run: (t: WsTransport, corked: () => number) => void): Promise<string[]> {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server = createServer();
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => run(new WsTransport(ws, false, socket), () => socket.writableCorked)),
  );
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const frames: string[] = [];
  await new Promise<void>((resolve, reject) => {
    client.on('message', (data, binary) => {
      frames.push(binary ? 'binary!' : data.toString());
      if (frames.length === count) resolve();
    });
    client.on('error', reject);
  });
  client.terminate();
  return frames;
}

describe('WsTransport', () => {
  it('when frames are sent together, then the socket is held while they are written and they arrive whole, as text, in order', async () => {
    const held: number[] = [];
    const frames = await received(4, (t, corked) => {
      t.together(() => {
        for (const n of [1, 2, 3]) {
          t.send(JSON.stringify({ op: 0, s: n, d: 'x'.repeat(n * 1000) }));
          held.push(corked());
        }
      });
      held.push(corked());
      t.send(JSON.stringify({ op: 0, s: 4, d: null }));
    });
    expect(frames.map((f) => JSON.parse(f).s)).toEqual([1, 2, 3, 4]);
    expect(JSON.parse(frames[2]!).d).toHaveLength(3000);
    expect(held).toEqual([1, 1, 1, 0]);
  });
});
