import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StandingAction } from '@kith/proto/auth/v1/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness } from './auth.harness.js';

// Issue 17 item 14: a suspended user completes age verification with the platform's provider
// (k-ID) through the safety hub's suspended routes, the suspended user token in the body. The
// provider is a loopback peer speaking k-ID's age-verification API.

const API_KEY = 'k-id-test-key';

/** k-ID's perform-access-age-verification and get-status, as its API answers them. */
class KidPeer {
  readonly started: { subject: string; criteria: unknown; authorization: string | undefined }[] = [];
  readonly statuses = new Map<string, string>();
  private constructor(private readonly server: Server) {}

  static async start(): Promise<KidPeer> {
    const peer: KidPeer = new KidPeer(createServer((req, res) => void peer.handle(req, res)));
    peer.server.listen(0, '127.0.0.1');
    await once(peer.server, 'listening');
    return peer;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', this.url);
    const json = (status: number, body: unknown): void =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers.authorization !== `Bearer ${API_KEY}`) return json(401, { error: 'UNAUTHORIZED' });
    if (req.method === 'POST' && url.pathname === '/api/v1/age-verification/perform-access-age-verification') {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { subject: { id: string }; criteria: unknown };
      const id = crypto.randomUUID();
      this.started.push({ subject: body.subject.id, criteria: body.criteria, authorization: req.headers.authorization });
      this.statuses.set(id, 'PENDING');
      return json(200, { id, url: `https://family.k-id.com/verify?id=${id}`, shortUrl: `https://k-id.com/v/${id.slice(0, 8)}` });
    }
    if (req.method === 'GET' && url.pathname === '/api/v1/age-verification/get-status') {
      const status = this.statuses.get(url.searchParams.get('id') ?? '');
      if (!status) return json(400, { error: 'INVALID_INPUT' });
      return json(200, {
        id: url.searchParams.get('id'),
        status,
        ...(status === 'PASS' ? { ageCategory: 'adult', age: { low: 18, high: 99 } } : {}),
      });
    }
    json(404, { error: 'NOT_FOUND' });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let kid: KidPeer;
let auth: AuthHarness;

beforeAll(async () => {
  kid = await KidPeer.start();
  auth = await AuthHarness.start({ K_ID_API_URL: kid.url, K_ID_API_KEY: API_KEY });
});

afterAll(async () => {
  await auth?.close();
  await kid?.close();
});

const post = <T = Record<string, unknown>>(path: string, body: unknown) => auth.request<T>('POST', path, { body });

/** A suspended account's suspended user token, as its login answers it. */
async function suspended() {
  const account = await auth.register();
  await auth.grpc.setAccountStanding({ userId: account.userId, action: StandingAction.SUSPEND, reason: 'Underage' });
  const login = await post<{ suspended_user_token: string }>('/auth/login', { login: account.email, password: account.password });
  expect(login.status).toBe(403);
  return { account, token: login.body.suspended_user_token };
}

describe('age verification for a suspended user', () => {
  it('when a suspended user requests verification, then the provider’s webview comes back, and check follows its outcome', async () => {
    const { account, token } = await suspended();
    expect((await post('/safety-hub/suspended/check-verification', { token })).body).toEqual({ success: false });

    const started = await post<{ verification_request_id: string; verification_vendor_name: string; verification_webview_url: string }>(
      '/safety-hub/suspended/request-verification',
      { token, from_classification_id: null },
    );
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.verification_request_id;
    expect(started.body).toEqual({
      verification_request_id: expect.any(String),
      verification_vendor_name: 'K_ID',
      verification_webview_url: `https://family.k-id.com/verify?id=${id}`,
    });
    const call = kid.started.at(-1)!;
    expect(call.criteria).toEqual({ ageCategory: 'ADULT' });
    // The provider never learns who the user is here.
    expect(call.subject).toMatch(/^[0-9a-f]{64}$/);
    expect(call.subject).not.toContain(account.userId);

    expect((await post('/safety-hub/suspended/check-verification', { token })).body).toEqual({ success: false });
    kid.statuses.set(id, 'FAIL');
    expect((await post('/safety-hub/suspended/check-verification', { token })).body).toEqual({ success: false });
    kid.statuses.set(id, 'PASS');
    expect((await post('/safety-hub/suspended/check-verification', { token })).body).toEqual({ success: true });
  });

  it('when the token is not a suspended user token, or missing, then 401 50014 and 50035', async () => {
    const account = await auth.register();
    for (const path of ['/safety-hub/suspended/request-verification', '/safety-hub/suspended/check-verification']) {
      const wrong = await post(path, { token: account.token });
      expect(wrong.status, path).toBe(401);
      expect(wrong.body.code).toBe(50014);
      const missing = await post(path, {});
      expect(missing.status, path).toBe(400);
      expect(missing.body.code).toBe(50035);
    }
    const { token } = await suspended();
    const bad = await post('/safety-hub/suspended/request-verification', { token, from_classification_id: 'nope' });
    expect(bad.status).toBe(400);
  });

  it('when the provider forgot the verification, then check answers false, and a provider outage is a 503, never a 500', async () => {
    const { token } = await suspended();
    const started = await post<{ verification_request_id: string }>('/safety-hub/suspended/request-verification', { token });
    kid.statuses.delete(started.body.verification_request_id);
    expect((await post('/safety-hub/suspended/check-verification', { token })).body).toEqual({ success: false });

    const offline = await AuthHarness.start({ K_ID_API_URL: 'http://127.0.0.1:1', K_ID_API_KEY: API_KEY });
    try {
      const account = await offline.register();
      await offline.grpc.setAccountStanding({ userId: account.userId, action: StandingAction.SUSPEND, reason: '' });
      const login = await offline.request<{ suspended_user_token: string }>('POST', '/auth/login', {
        body: { login: account.email, password: account.password },
      });
      const reply = await offline.request('POST', '/safety-hub/suspended/request-verification', {
        body: { token: login.body.suspended_user_token },
      });
      expect(reply.status).toBe(503);
    } finally {
      await offline.close();
    }
  });
});
