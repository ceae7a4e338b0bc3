import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SmtpPeer, TwilioPeer, textOf } from '../../services/auth/test/integration/delivery.peers.js';

/**
 * The end-to-end system's mail and SMS providers: a real SMTP server and a Twilio Messages API peer
 * on loopback, and a small HTTP server through which test files (in other processes) read what
 * they received: `GET /mails?to=` and `GET /texts?to=`.
 */
export async function startInbox(): Promise<{ url: string; env: Record<string, string>; close(): Promise<void> }> {
  const smtp = await SmtpPeer.start();
  const twilio = await TwilioPeer.start();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://inbox');
    const to = url.searchParams.get('to') ?? '';
    const body =
      url.pathname === '/mails'
        ? smtp.mails.filter((m) => m.envelope.to.includes(to)).map((m) => ({ subject: m.headers.subject ?? '', text: textOf(m) }))
        : url.pathname === '/texts'
          ? twilio.received.filter((t) => t.to === to).map((t) => ({ to: t.to, body: t.body }))
          : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { message: '404: Not Found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    env: { SMTP_URL: smtp.url, ...twilio.env() },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await smtp.close();
      await twilio.close();
    },
  };
}
