import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness } from './auth.harness.js';
import { enrolledAccount } from './mfa.fixtures.js';

/**
 * One passkey registered and used for a passwordless login by a real Chromium, through a CDP
 * virtual authenticator: the browser's own WebAuthn stack (not our soft authenticator) builds the
 * attestation and the assertion the service checks.
 */

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The page's ceremony helpers. The service sends options as JSON (base64url buffers); the browser
 * API takes ArrayBuffers and returns them, so both directions convert by hand (older Chromium has
 * no parse*FromJSON / toJSON).
 */
const PAGE = `<!doctype html><html><head><title>passkey</title><script>
const toBytes = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
const toB64u = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
window.createPasskey = async (challenge) => {
  const { publicKey } = JSON.parse(challenge);
  publicKey.challenge = toBytes(publicKey.challenge);
  publicKey.user.id = toBytes(publicKey.user.id);
  publicKey.excludeCredentials = (publicKey.excludeCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) }));
  const cred = await navigator.credentials.create({ publicKey });
  return JSON.stringify({
    id: cred.id,
    rawId: toB64u(cred.rawId),
    type: cred.type,
    clientExtensionResults: cred.getClientExtensionResults(),
    authenticatorAttachment: cred.authenticatorAttachment,
    response: {
      clientDataJSON: toB64u(cred.response.clientDataJSON),
      attestationObject: toB64u(cred.response.attestationObject),
      transports: cred.response.getTransports(),
    },
  });
};
window.usePasskey = async (challenge) => {
  const { publicKey } = JSON.parse(challenge);
  publicKey.challenge = toBytes(publicKey.challenge);
  publicKey.allowCredentials = (publicKey.allowCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) }));
  const cred = await navigator.credentials.get({ publicKey });
  return JSON.stringify({
    id: cred.id,
    rawId: toB64u(cred.rawId),
    type: cred.type,
    clientExtensionResults: cred.getClientExtensionResults(),
    authenticatorAttachment: cred.authenticatorAttachment,
    response: {
      clientDataJSON: toB64u(cred.response.clientDataJSON),
      authenticatorData: toB64u(cred.response.authenticatorData),
      signature: toB64u(cred.response.signature),
      userHandle: cred.response.userHandle ? toB64u(cred.response.userHandle) : null,
    },
  });
};
</script></head><body>passkey</body></html>`;

let site: Server;
let origin: string;
let auth: AuthHarness;
let browser: Browser;

beforeAll(async () => {
  // `npm test` installs it first (scripts/test-prerequisites.mjs); a run started another way says what is missing.
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) to run this test`);
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  // http://localhost is a secure context, and `localhost` is the service's RP ID.
  origin = `http://localhost:${(site.address() as AddressInfo).port}`;
  auth = await AuthHarness.start({ WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: origin });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  await auth?.close();
  await new Promise((resolve) => site?.close(resolve));
});

/** A page of the test site with a CTAP2 platform authenticator that holds passkeys and verifies its user. */
async function pageWithAuthenticator(): Promise<Page> {
  const page = await browser.newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  await page.goto(`${origin}/`);
  return page;
}

describe('passkey in Chromium', () => {
  it('when Chromium registers a passkey, then it logs in passwordless with it and the token is valid', async () => {
    const account = await enrolledAccount(auth);
    const page = await pageWithAuthenticator();

    const start = await auth.request<{ ticket: string; challenge: string }>('POST', '/users/@me/mfa/webauthn/credentials', {
      identity: account.identity,
      body: {},
    });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const attestation = await page.evaluate(
      (challenge) => (globalThis as unknown as PasskeyPage).createPasskey(challenge),
      start.body.challenge,
    );
    const created = await auth.request<{ id: string; type: number; name: string }>('POST', '/users/@me/mfa/webauthn/credentials', {
      identity: account.identity,
      body: { ticket: start.body.ticket, credential: attestation, name: 'Chromium' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ type: 1, name: 'Chromium' });

    const login = await auth.request<{ ticket: string; challenge: string }>('POST', '/auth/conditional/start', { body: {} });
    expect(login.status).toBe(200);
    const assertion = await page.evaluate(
      (challenge) => (globalThis as unknown as PasskeyPage).usePasskey(challenge),
      login.body.challenge,
    );
    // The browser picked the passkey itself (no allowCredentials): it names its user.
    expect(JSON.parse(assertion)).toMatchObject({ id: JSON.parse(attestation).id, response: { userHandle: expect.any(String) } });
    const finish = await auth.request<{ user_id: string; token: string }>('POST', '/auth/conditional/finish', {
      body: { ticket: login.body.ticket, credential: assertion },
    });
    expect(finish.status, JSON.stringify(finish.body)).toBe(200);
    expect(finish.body.user_id).toBe(account.userId);
    expect((await auth.identityOf(finish.body.token)).userId).toBe(account.userId);

    // The same assertion again: the ticket went with the first use.
    const replay = await auth.request<{ code: number }>('POST', '/auth/conditional/finish', {
      body: { ticket: login.body.ticket, credential: assertion },
    });
    expect(replay.body.code).toBe(60006);
    await page.close();
  });

  it('when the browser answers the challenge of another ticket, then that login is refused and its own still works', async () => {
    const account = await enrolledAccount(auth);
    const page = await pageWithAuthenticator();
    const start = await auth.request<{ ticket: string; challenge: string }>('POST', '/users/@me/mfa/webauthn/credentials', {
      identity: account.identity,
      body: {},
    });
    const attestation = await page.evaluate(
      (challenge) => (globalThis as unknown as PasskeyPage).createPasskey(challenge),
      start.body.challenge,
    );
    const created = await auth.request('POST', '/users/@me/mfa/webauthn/credentials', {
      identity: account.identity,
      body: { ticket: start.body.ticket, credential: attestation },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);

    const first = await auth.request<{ ticket: string; challenge: string }>('POST', '/auth/conditional/start', { body: {} });
    const second = await auth.request<{ ticket: string; challenge: string }>('POST', '/auth/conditional/start', { body: {} });
    const assertion = await page.evaluate(
      (challenge) => (globalThis as unknown as PasskeyPage).usePasskey(challenge),
      first.body.challenge,
    );
    const wrong = await auth.request<{ code: number }>('POST', '/auth/conditional/finish', {
      body: { ticket: second.body.ticket, credential: assertion },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe(60008);
    const right = await auth.request<{ user_id: string }>('POST', '/auth/conditional/finish', {
      body: { ticket: first.body.ticket, credential: assertion },
    });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    expect(right.body.user_id).toBe(account.userId);
    await page.close();
  });
});

interface PasskeyPage {
  createPasskey(challenge: string): Promise<string>;
  usePasskey(challenge: string): Promise<string>;
}
