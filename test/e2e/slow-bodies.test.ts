import { connect, type Socket } from 'node:net';
import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import { api, newUser } from './client.js';

/**
 * Issue 12, finding 1, through the whole system: clients that send login bodies a byte at a time
 * used to hold every connection of the edge's pool to auth (64), and auth stopped answering anyone.
 * Here 80 of them, from 80 addresses, keep trickling while another client calls one route of every
 * service behind the edge: each must answer it before any slow client is answered or cut off.
 */

interface Trickler {
  socket: Socket;
  /** Body bytes written so far. */
  sent: number;
  /** Bytes the edge sent back: anything at all means the slow request was answered or refused. */
  received: number;
  closed: boolean;
}

/** A login from `address` whose body (of known length, or chunked) arrives one byte every 300 ms. */
function trickle(address: string, chunked: boolean): Trickler {
  const { hostname, port } = new URL(inject('gatewayOrigin'));
  const socket = connect({ host: hostname, port: Number(port), localAddress: address });
  const t: Trickler = { socket, sent: 0, received: 0, closed: false };
  socket.on('data', (chunk: Buffer) => (t.received += chunk.length));
  socket.on('close', () => (t.closed = true));
  socket.on('error', () => undefined);
  const length = chunked ? 'Transfer-Encoding: chunked' : 'Content-Length: 100';
  socket.write(`POST /api/v9/auth/login HTTP/1.1\r\nHost: edge\r\nContent-Type: application/json\r\n${length}\r\n\r\n`);
  const send = (text: string) => {
    socket.write(chunked ? `${text.length.toString(16)}\r\n${text}\r\n` : text, () => (t.sent += text.length));
  };
  send('{');
  const timer = setInterval(() => send(' '), 300);
  socket.on('close', () => clearInterval(timer));
  return t;
}

/** Resolves once every slow client has written its headers and at least `bytes` bytes of body. */
async function sending(tricklers: Trickler[], bytes: number): Promise<void> {
  for (let i = 0; i < 200 && tricklers.some((t) => t.sent < bytes && !t.closed); i++) await new Promise((r) => setTimeout(r, 50));
  expect(tricklers.filter((t) => t.sent < bytes)).toEqual([]);
}

describe('slow request bodies against the whole system (finding 1)', () => {
  it('when 80 clients trickle login bodies, then another client is answered by every service while each of them is still sending', async () => {
    const user = await newUser();
    const guild = (await api('POST', '/guilds', { token: user.token, body: { name: 'slow bodies' } })).json as { id: string };
    const routes = [
      ['auth', '/users/@me'],
      ['auth', '/auth/login'],
      ['social', '/users/@me/relationships'],
      ['guilds', '/users/@me/guilds'],
      ['guilds', `/guilds/${guild.id}/channels`],
      ['invites', `/guilds/${guild.id}/invites`],
      ['integrations', `/guilds/${guild.id}/integrations`],
      ['billing', '/users/@me/billing/subscriptions'],
      ['webhooks', `/guilds/${guild.id}/webhooks`],
      ['realtime', '/gateway'],
    ] as const;

    const slow = Array.from({ length: 80 }, (_, i) => trickle(`127.0.9.${i + 1}`, i % 2 === 1));
    try {
      // Three bytes each: the headers reached the edge long before, and it is waiting on the body.
      await sending(slow, 3);
      const answers: string[] = [];
      for (const [service, path] of routes) {
        const res =
          path === '/auth/login'
            ? await api('POST', path, { body: { login: user.email, password: user.password }, from: '127.0.8.1' })
            : await api('GET', path, { token: user.token, from: '127.0.8.1' });
        answers.push(`${service} ${path} ${res.status}`);
      }
      expect(answers).toEqual(routes.map(([service, path]) => `${service} ${path} 200`));
      // Nobody cut the slow clients off to make room: they were all still sending meanwhile.
      expect(slow.filter((t) => t.received > 0 || t.closed)).toHaveLength(0);
    } finally {
      for (const t of slow) t.socket.destroy();
    }
  });
});
