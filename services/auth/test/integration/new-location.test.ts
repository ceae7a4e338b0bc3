import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness, expectFormError, type Account } from './auth.harness.js';
import { SmtpPeer, textOf } from './delivery.peers.js';
import { enrolledAccount } from './mfa.fixtures.js';

let auth: AuthHarness;
let smtp: SmtpPeer;

beforeAll(async () => {
  smtp = await SmtpPeer.start();
  // The suite's other files share 127.0.0.1's login-failure window; these tests are not about it.
  auth = await AuthHarness.start({ SMTP_URL: smtp.url, PUBLIC_WEB_URL: 'https://kith.test', LOGIN_FAILURES_PER_IP: 10_000 });
});

afterAll(async () => {
  await auth?.close();
  await smtp?.close();
});

/** Public addresses GeoIP places in the United Kingdom and the United States. */
const GB_IP = '81.2.69.142';
const OTHER_GB_IP = '81.2.69.160';
const US_IP = '8.8.8.8';
const AUTHORIZE_LINK = /https:\/\/kith\.test\/authorize-ip#token=([A-Za-z0-9_-]+)/;

const loginFrom = (account: Pick<Account, 'email' | 'password'>, clientIp: string, password = account.password) =>
  auth.request<{ token?: string; mfa?: boolean }>('POST', '/auth/login', {
    identity: { clientIp },
    body: { login: account.email, password },
  });

const authorizeIp = (body: unknown) => auth.request('POST', '/auth/authorize-ip', { identity: { clientIp: GB_IP }, body });

function expectNewLocation(reply: Awaited<ReturnType<typeof loginFrom>>): void {
  expectFormError(reply, { login: 'ACCOUNT_LOGIN_VERIFICATION_EMAIL' });
  expect(reply.body).toEqual({
    code: 50035,
    message: 'Invalid Form Body',
    errors: {
      login: { _errors: [{ code: 'ACCOUNT_LOGIN_VERIFICATION_EMAIL', message: 'New login location detected, please check your e-mail.' }] },
    },
  });
}

describe('the new-location check', () => {
  it('when a password login comes from a country the account never used, then the email verification error and a mail; authorize-ip lets it in', async () => {
    const account = await auth.register();
    expectNewLocation(await loginFrom(account, GB_IP));
    const [mail] = await smtp.mailsTo(account.email);
    expect(mail!.headers.subject).toBe('Verify your new login location');
    expect(textOf(mail)).toContain('(United Kingdom)');
    const token = AUTHORIZE_LINK.exec(textOf(mail))?.[1];
    expect(token).toHaveLength(43);

    const authorized = await authorizeIp({ token });
    expect(authorized.status).toBe(204);
    expect(authorized.body).toBe('');

    const reply = await loginFrom(account, GB_IP);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.token).toEqual(expect.any(String));
    expect((await loginFrom(account, OTHER_GB_IP)).status).toBe(200);
    // Another country is new again; the used token authorizes nothing more.
    expectNewLocation(await loginFrom(account, US_IP));
    expectFormError(await authorizeIp({ token }), { token: 'TOKEN_INVALID' });
  });

  it('when the account registered from a country, then logins from it and from local addresses pass', async () => {
    const account = await auth.register({}, { identity: { clientIp: US_IP } });
    expect((await loginFrom(account, US_IP)).status).toBe(200);
    expect((await loginFrom(account, '::1')).status).toBe(200);
    expect((await loginFrom(account, '10.1.2.3')).status).toBe(200);
    expect(await smtp.mailsTo(account.email, 1, 200)).toEqual([]);
  });

  it('when the account has MFA, then a new country gets the MFA challenge, not the check', async () => {
    const account = await enrolledAccount(auth);
    const reply = await loginFrom(account, GB_IP);
    expect(reply.status).toBe(200);
    expect(reply.body.mfa).toBe(true);
  });

  it('when the password is wrong from a new country, then the usual invalid login and no mail', async () => {
    const account = await auth.register();
    expectFormError(await loginFrom(account, GB_IP, 'not the password'), { login: 'INVALID_LOGIN', password: 'INVALID_LOGIN' });
    expect(await smtp.mailsTo(account.email, 1, 200)).toEqual([]);
  });
});

describe('POST /auth/authorize-ip', () => {
  it('when the token is unknown, missing, wrongly typed or the JSON malformed, then 50035 or 50109', async () => {
    expectFormError(await authorizeIp({ token: 'A'.repeat(43) }), { token: 'TOKEN_INVALID' });
    expectFormError(await authorizeIp({}), { token: 'BASE_TYPE_REQUIRED' });
    expectFormError(await authorizeIp({ token: 3 }), { token: 'BASE_TYPE_STRING' });
    const malformed = await auth.request('POST', '/auth/authorize-ip', { rawBody: '{"token"' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 50109 });
  });
});
