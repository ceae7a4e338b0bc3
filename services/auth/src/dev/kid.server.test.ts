import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgeVerificationError, KidAgeVerifier } from '../delivery/age-verification.js';
import { KidServer } from './kid.server.js';

/**
 * The development k-ID stand-in, driven by auth's own k-ID adapter over loopback HTTP, and its
 * verification page driven as a browser submits it.
 */

const API_KEY = 'kith-development-k-id';
let server: KidServer;
let url: string;
let verifier: KidAgeVerifier;

beforeAll(async () => {
  server = new KidServer({ apiKey: API_KEY });
  url = await server.listen(0, '127.0.0.1');
  verifier = new KidAgeVerifier({ baseUrl: url, apiKey: API_KEY, jurisdiction: 'US' });
});

afterAll(() => server.close());

/** The page's form, submitted as a browser does. */
const submit = (id: string, outcome: string) =>
  fetch(`${url}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ id, outcome }).toString(),
  });

/** The user opens the verification page and picks an outcome on it. */
async function choose(pageUrl: string, outcome: string): Promise<Response> {
  const markup = await (await fetch(pageUrl)).text();
  const id = /name="id" value="([^"]+)"/.exec(markup)?.[1];
  expect(id).toBeDefined();
  return submit(id!, outcome);
}

describe('the development k-ID stand-in', () => {
  it('when a verification is started, then it is pending until the user passes it on its page', async () => {
    const started = await verifier.start('subject-1');
    expect(started.url).toBe(`${url}/verify?id=${started.id}`);
    expect(await verifier.status(started.id)).toBe('PENDING');
    const done = await choose(started.url, 'PASS');
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('PASS');
    expect(await verifier.status(started.id)).toBe('PASS');
    // Finished is finished: the page offers no choice any more, and a late submission changes nothing.
    expect(await (await fetch(started.url)).text()).not.toContain('<form');
    await submit(started.id, 'FAIL');
    expect(await verifier.status(started.id)).toBe('PASS');
  });

  it('when the user fails it, then its status is FAIL', async () => {
    const started = await verifier.start('subject-2');
    await choose(started.url, 'FAIL');
    expect(await verifier.status(started.id)).toBe('FAIL');
  });

  it('when the id is unknown (or was forgotten by a restart), then the adapter reads UNKNOWN, and the page says not found', async () => {
    expect(await verifier.status('no-such-verification')).toBe('UNKNOWN');
    expect((await fetch(`${url}/verify?id=no-such-verification`)).status).toBe(404);
  });

  it('when the API key is wrong or missing, then the adapter fails and nothing is started', async () => {
    const wrong = new KidAgeVerifier({ baseUrl: url, apiKey: 'not-the-key', jurisdiction: 'US' });
    await expect(wrong.start('subject-3')).rejects.toBeInstanceOf(AgeVerificationError);
    const bare = await fetch(`${url}/api/v1/age-verification/perform-access-age-verification`, { method: 'POST', body: '{}' });
    expect(bare.status).toBe(401);
    expect(await bare.json()).toMatchObject({ error: 'UNAUTHORIZED' });
  });

  it('when a start is malformed (not JSON, no criteria, a bad jurisdiction), then 400 INVALID_INPUT; a bad outcome on the page is 400', async () => {
    const post = (body: string) =>
      fetch(`${url}/api/v1/age-verification/perform-access-age-verification`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body,
      });
    for (const body of ['{', '{"jurisdiction":"US"}', '{"jurisdiction":"usa","criteria":{"ageCategory":"ADULT"}}', 'null']) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'INVALID_INPUT' });
    }
    const started = await verifier.start('subject-4');
    expect((await choose(started.url, 'MAYBE')).status).toBe(400);
    expect(await verifier.status(started.id)).toBe('PENDING');
  });
});
