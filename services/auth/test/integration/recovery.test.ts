import { randomInt } from 'node:crypto';
import { connectNats, eventSubject, REVOKED_SESSIONS_HEADER, type NatsConnection } from '@kith/platform';
import { readStoredEvents, unique } from '@kith/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionIdHash } from '../../src/domain/tokens.js';
import type { AuthSessionChange } from '../../src/events/session.events.js';
import { AuthHarness, expectFormError, type Account, type Reply } from './auth.harness.js';
import { SmtpPeer, textOf } from './delivery.peers.js';
import { codeAt, enrolledAccount, expectMfaRequired, finishMfa } from './mfa.fixtures.js';

let auth: AuthHarness;
let smtp: SmtpPeer;
let nats: NatsConnection;
let since: Date;

beforeAll(async () => {
  since = new Date(Date.now() - 1_000);
  smtp = await SmtpPeer.start();
  // The suite's other files share 127.0.0.1's login-failure window; these tests are not about it.
  auth = await AuthHarness.start({ SMTP_URL: smtp.url, PUBLIC_WEB_URL: 'https://kith.test', LOGIN_FAILURES_PER_IP: 10_000 });
  nats = await connectNats(auth.stores.NATS_URL, 'auth-recovery-test');
});

afterAll(async () => {
  await nats?.drain();
  await auth?.close();
  await smtp?.close();
});

const NEW_PASSWORD = 'a whole new password';
const SESSION_CHANGES = eventSubject('auth', 'AUTH_SESSION_CHANGE');

/** The token a link in the latest mail to `to` carries. */
async function linkToken(to: string, pattern: RegExp, count = 1): Promise<string> {
  const mails = await smtp.mailsTo(to, count);
  const token = pattern.exec(textOf(mails.at(-1)))?.[1];
  if (!token) throw new Error(`no link matching ${pattern} in the mail to ${to}: ${textOf(mails.at(-1))}`);
  return token;
}

const RESET_LINK = /https:\/\/kith\.test\/reset#token=([A-Za-z0-9_-]+)/;
const ONE_TIME_LINK = /https:\/\/kith\.test\/login\/one-time\?ticket=([A-Za-z0-9_-]+)/;
const REVERT_LINK = /https:\/\/kith\.test\/wasntme\/([A-Za-z0-9_-]+)/;

const forgot = (login: unknown) => auth.request<{ method: string }>('POST', '/auth/forgot', { body: { login } });
const reset = (body: unknown) => auth.request<Record<string, unknown>>('POST', '/auth/reset', { body });
const oneTimeLogin = (ticket: unknown) => auth.request<{ token: string }>('POST', '/auth/one-time-login', { body: { ticket } });
const revert = (body: unknown) => auth.request<{ email: string }>('POST', '/auth/revert', { body });

async function isValid(token: string): Promise<boolean> {
  return (await auth.grpc.validateToken({ token, clientIp: '127.0.0.1' })).valid;
}

/** The session ids AUTH_SESSION_CHANGE reported ended for one user, as stored on the stream. */
async function endedSessions(userId: string): Promise<string[]> {
  const stored = await readStoredEvents<AuthSessionChange>(nats, SESSION_CHANGES, since);
  return stored
    .filter((e) => e.envelope.audience.users?.includes(userId))
    .flatMap((e) => {
      const { revoked_session_ids: ids, moved_to_session: moved } = e.envelope.internal as {
        revoked_session_ids: string[];
        moved_to_session?: { id: string };
      };
      // A session that goes on as the caller's new one names the new session's hash.
      expect(e.envelope.data).toEqual({ auth_session_id_hash: sessionIdHash(moved?.id ?? ids[0]!) });
      return ids;
    });
}

async function waitForEnded(userId: string, sessionIds: string[]): Promise<void> {
  const deadline = Date.now() + 5000;
  let ended: string[] = [];
  while (Date.now() < deadline) {
    ended = await endedSessions(userId);
    if (sessionIds.every((id) => ended.includes(id))) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(ended).toEqual(expect.arrayContaining(sessionIds));
}

const expectTokenInvalid = (reply: Reply, field = 'token') => expectFormError(reply, { [field]: 'TOKEN_INVALID' });

async function resetTokenFor(account: Pick<Account, 'email'>, count = 1): Promise<string> {
  expect((await forgot(account.email)).status).toBe(200);
  return linkToken(account.email, RESET_LINK, count);
}

describe('POST /auth/forgot', () => {
  it('when the login is an existing account without MFA or an unknown one, then both answer one_time_login and only the account is mailed', async () => {
    const account = await auth.register();
    const unknown = `${unique('nobody')}@example.com`;
    const [forUnknown, forAccount] = [await forgot(unknown), await forgot(account.email)];
    expect(forUnknown.status).toBe(200);
    expect(forAccount.status).toBe(200);
    expect(forUnknown.body).toEqual({ method: 'one_time_login' });
    expect(forAccount.body).toEqual(forUnknown.body);

    const [mail] = await smtp.mailsTo(account.email);
    expect(mail!.headers.subject).toBe('Reset your password');
    expect(textOf(mail)).toMatch(RESET_LINK);
    expect(textOf(mail)).toMatch(ONE_TIME_LINK);
    expect(mail!.parts.find((p) => p.contentType === 'text/html')?.body).toContain('https://kith.test/login/one-time?ticket=');
    // The token carries at least 128 bits: 43 base64url characters are 256.
    expect(RESET_LINK.exec(textOf(mail))![1]).toHaveLength(43);
    expect(await smtp.mailsTo(unknown, 1, 200)).toEqual([]);
  });

  it('when the login is an unknown phone number, then 70007 as for a known one (recovery-phone.test.ts) and no mail', async () => {
    const reply = await forgot(`+1555${Math.floor(Math.random() * 1e7)}`);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ code: 70007, message: 'Phone verification is required to perform this action' });
  });

  it('when the account has MFA, then password_reset and the mail carries no one-time login link', async () => {
    const account = await enrolledAccount(auth);
    const reply = await forgot(account.email);
    expect(reply.body).toEqual({ method: 'password_reset' });
    const [mail] = await smtp.mailsTo(account.email);
    expect(textOf(mail)).toMatch(RESET_LINK);
    expect(textOf(mail)).not.toMatch(ONE_TIME_LINK);
  });

  it('when the body is missing the login, wrongly typed or malformed, then 50035 or 50109', async () => {
    expectFormError(await auth.request('POST', '/auth/forgot', { body: {} }), { login: 'BASE_TYPE_REQUIRED' });
    expectFormError(await forgot(5), { login: 'BASE_TYPE_STRING' });
    expectFormError(await forgot(''), { login: 'BASE_TYPE_BAD_LENGTH' });
    const malformed = await auth.request('POST', '/auth/forgot', { rawBody: '{"login":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 50109 });
  });
});

describe('POST /auth/reset', () => {
  it('when an account without MFA resets, then a new token, every other session ends with AUTH_SESSION_CHANGE and only the new password logs in', async () => {
    const account = await auth.register();
    const other = await auth.login(account.email, account.password);
    const token = await resetTokenFor(account);

    const reply = await reset({ token, password: NEW_PASSWORD, source: '/reset' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({ token: expect.any(String) });
    const fresh = reply.body.token as string;
    expect(await isValid(fresh)).toBe(true);
    expect(await isValid(account.token)).toBe(false);
    expect(await isValid(other.token)).toBe(false);
    expect(reply.headers.get(REVOKED_SESSIONS_HEADER)?.split(',').sort()).toEqual([account.sessionId, other.identity.sessionId].sort());
    await waitForEnded(account.userId, [account.sessionId, other.identity.sessionId!]);
    expect(await auth.sessions(await auth.identityOf(fresh))).toHaveLength(1);

    // From an address of its own: a failed login counts against the address's login limit.
    const old = await auth.request('POST', '/auth/login', {
      identity: { clientIp: '10.66.0.1' },
      body: { login: account.email, password: account.password },
    });
    expect(old.status).toBe(400);
    await auth.login(account.email, NEW_PASSWORD);
  });

  it('when the reset token is used twice, unknown or too long, then 50035 TOKEN_INVALID on token', async () => {
    const account = await auth.register();
    const token = await resetTokenFor(account);
    expect((await reset({ token, password: NEW_PASSWORD })).status).toBe(200);
    expectTokenInvalid(await reset({ token, password: NEW_PASSWORD }));
    expectTokenInvalid(await reset({ token: 'A'.repeat(43), password: NEW_PASSWORD }));
    expectTokenInvalid(await reset({ token: 'A'.repeat(300), password: NEW_PASSWORD }));
  });

  it('when the body is incomplete, the password out of 8–72 or the JSON malformed, then 50035 or 50109', async () => {
    expectFormError(await reset({}), { token: 'BASE_TYPE_REQUIRED', password: 'BASE_TYPE_REQUIRED' });
    expectFormError(await reset({ token: 'x', password: 'short' }), { password: 'BASE_TYPE_BAD_LENGTH' });
    expectFormError(await reset({ token: 'x', password: 'p'.repeat(73) }), { password: 'BASE_TYPE_BAD_LENGTH' });
    expectFormError(await reset({ token: 7, password: NEW_PASSWORD }), { token: 'BASE_TYPE_STRING' });
    const malformed = await auth.request('POST', '/auth/reset', { rawBody: '{' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 50109 });
  });

  it('when the account has TOTP, then a ticket first with nothing changed; wrong code 60008, bad ticket 60006; the right code completes it', async () => {
    const account = await enrolledAccount(auth);
    const token = await resetTokenFor(account);

    const first = await reset({ token, password: NEW_PASSWORD });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      user_id: account.userId,
      ticket: expect.any(String),
      mfa: true,
      totp: true,
      sms: false,
      backup: true,
      webauthn: null,
    });
    const ticket = first.body.ticket as string;
    expect(await isValid(account.token)).toBe(true);
    const stillOld = await auth.request<{ mfa?: boolean }>('POST', '/auth/login', {
      body: { login: account.email, password: account.password },
    });
    expect(stillOld.body.mfa).toBe(true);

    const wrong = await reset({ token, password: NEW_PASSWORD, method: 'totp', ticket, code: '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 60008 });
    const badTicket = await reset({ token, password: NEW_PASSWORD, method: 'totp', ticket: `${ticket}x`, code: codeAt(account.secret, 1) });
    expect(badTicket.status).toBe(400);
    expect(badTicket.body).toMatchObject({ code: 60006 });

    const done = await reset({ token, password: NEW_PASSWORD, method: 'totp', ticket, code: codeAt(account.secret, 1) });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toEqual({ token: expect.any(String) });
    expect(await isValid(account.token)).toBe(false);
    expect(await isValid(done.body.token as string)).toBe(true);
    await waitForEnded(account.userId, [account.sessionId]);
    // The ticket and the reset token are both spent.
    expectTokenInvalid(await reset({ token, password: NEW_PASSWORD, method: 'totp', ticket, code: codeAt(account.secret, 1) }));
    const login = await auth.request<{ mfa?: boolean }>('POST', '/auth/login', { body: { login: account.email, password: NEW_PASSWORD } });
    expect(login.body.mfa).toBe(true);
  });

  it('when a backup code completes an MFA reset, then a token; a ticket of another reset token is refused 60006', async () => {
    const account = await enrolledAccount(auth);
    const firstToken = await resetTokenFor(account);
    const ticket = (await reset({ token: firstToken, password: NEW_PASSWORD })).body.ticket as string;
    const secondToken = await resetTokenFor(account, 2);
    const crossed = await reset({
      token: secondToken,
      password: NEW_PASSWORD,
      method: 'backup',
      ticket,
      code: account.backupCodes[0]!.code,
    });
    expect(crossed.body).toMatchObject({ code: 60006 });
    const done = await reset({ token: firstToken, password: NEW_PASSWORD, method: 'backup', ticket, code: account.backupCodes[0]!.code });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toEqual({ token: expect.any(String) });
  });
});

describe('POST /auth/one-time-login', () => {
  it('when the mailed ticket is used, then a token for the account; a second use is refused', async () => {
    const account = await auth.register();
    expect((await forgot(account.email)).status).toBe(200);
    const ticket = await linkToken(account.email, ONE_TIME_LINK);

    const reply = await oneTimeLogin(ticket);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ token: expect.any(String) });
    expect((await auth.identityOf(reply.body.token)).userId).toBe(account.userId);
    expectTokenInvalid(await oneTimeLogin(ticket), 'ticket');
  });

  it('when the ticket is unknown, missing, wrongly typed or the JSON malformed, then 50035 or 50109', async () => {
    expectTokenInvalid(await oneTimeLogin('A'.repeat(43)), 'ticket');
    expectFormError(await auth.request('POST', '/auth/one-time-login', { body: {} }), { ticket: 'BASE_TYPE_REQUIRED' });
    expectFormError(await oneTimeLogin(1), { ticket: 'BASE_TYPE_STRING' });
    const malformed = await auth.request('POST', '/auth/one-time-login', { rawBody: 'nope' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 50109 });
  });
});

const patchMe = (identity: Account['identity'], body: unknown, headers: Record<string, string> = {}) =>
  auth.request<{ email: string }>('PATCH', '/users/@me', { identity, body, headers });

/** Changes the account's email through PATCH /users/@me with password elevation (the account has no MFA yet). */
async function changeEmail(account: Account, email: string): Promise<void> {
  const body = { email, password: account.password };
  const required = expectMfaRequired(await patchMe(account.identity, body), [{ type: 'password' }]);
  const { token } = await finishMfa(auth, account.identity, required, 'password', account.password);
  const reply = await patchMe(account.identity, body, { 'x-discord-mfa-authorization': token });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

const phone = () => `+1415${randomInt(200, 1000)}${String(randomInt(0, 10_000)).padStart(4, '0')}`;

describe('POST /auth/revert', () => {
  it('when the old address reverts an email change, then email, password, MFA, phones and sessions are all reset and the token is spent', async () => {
    const account = await auth.register();
    const [firstPhone, secondPhone] = [phone(), phone()];
    await auth.db.updateTable('users').set({ phone: firstPhone }).where('id', '=', account.userId).execute();
    await auth.db.updateTable('users').set({ phone: secondPhone }).where('id', '=', account.userId).execute();
    const takenOver = `${unique('attacker')}@example.com`;
    await changeEmail(account, takenOver);
    const [mail] = await smtp.mailsTo(account.email);
    expect(mail!.headers.subject).toBe('Your email address was changed');
    expect(await smtp.mailsTo(takenOver, 1, 200)).toEqual([]);
    const token = await linkToken(account.email, REVERT_LINK);
    expect(token).toHaveLength(43);

    // The attacker also adds TOTP and keeps a session.
    const attacker = await auth.login(takenOver, account.password);
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DP';
    const enabled = await auth.request<{ token: string }>('POST', '/users/@me/mfa/totp/enable', {
      identity: attacker.identity,
      body: { password: account.password, secret, code: codeAt(secret) },
    });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);

    const reply = await revert({ token, password: NEW_PASSWORD });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({ email: account.email });
    expect(reply.headers.get(REVOKED_SESSIONS_HEADER)).toBeTruthy();
    expect(await isValid(enabled.body.token)).toBe(false);
    expect(await isValid(attacker.token)).toBe(false);
    expect(await isValid(account.token)).toBe(false);
    await waitForEnded(account.userId, [account.sessionId]);

    const user = await auth.db.selectFrom('users').selectAll().where('id', '=', account.userId).executeTakeFirstOrThrow();
    expect(user).toMatchObject({ email: account.email, phone: null, mfa_enabled: false });
    const db = auth.db.withTables<{
      user_totp: { user_id: string };
      backup_codes: { user_id: string };
      phone_blacklist: { phone: string };
    }>();
    expect(await db.selectFrom('user_totp').select('user_id').where('user_id', '=', account.userId).execute()).toEqual([]);
    expect(await db.selectFrom('backup_codes').select('user_id').where('user_id', '=', account.userId).execute()).toEqual([]);
    const blacklisted = await db.selectFrom('phone_blacklist').select('phone').where('phone', 'in', [firstPhone, secondPhone]).execute();
    expect(blacklisted.map((r) => r.phone).sort()).toEqual([firstPhone, secondPhone].sort());

    const login = await auth.request<{ token?: string; mfa?: boolean }>('POST', '/auth/login', {
      body: { login: account.email, password: NEW_PASSWORD },
    });
    expect(login.status).toBe(200);
    expect(login.body.token).toEqual(expect.any(String));
    expectTokenInvalid(await revert({ token, password: NEW_PASSWORD }));

    // A blacklisted number can no longer be verified for any account.
    const send = await auth.request('POST', '/auth/register/phone', { identity: { clientIp: '10.9.8.7' }, body: { phone: firstPhone } });
    expectFormError(send, { phone: 'PHONE_NUMBER_UNABLE_TO_SEND' });
  });

  it('when the original email now belongs to another account, then 50035 on email and nothing changes', async () => {
    const account = await auth.register();
    const moved = `${unique('moved')}@example.com`;
    await changeEmail(account, moved);
    const token = await linkToken(account.email, REVERT_LINK);
    await auth.register({ email: account.email });

    expectFormError(await revert({ token, password: NEW_PASSWORD }), { email: 'EMAIL_ALREADY_REGISTERED' });
    const user = await auth.db.selectFrom('users').select('email').where('id', '=', account.userId).executeTakeFirstOrThrow();
    expect(user.email).toBe(moved);
    expect(await isValid(account.token)).toBe(true);
  });

  it('when the token is unknown, the body incomplete or the JSON malformed, then 50035 or 50109', async () => {
    expectTokenInvalid(await revert({ token: 'A'.repeat(43), password: NEW_PASSWORD }));
    expectFormError(await revert({}), { token: 'BASE_TYPE_REQUIRED', password: 'BASE_TYPE_REQUIRED' });
    expectFormError(await revert({ token: 'x', password: 'short' }), { password: 'BASE_TYPE_BAD_LENGTH' });
    const malformed = await auth.request('POST', '/auth/revert', { rawBody: '[' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 50109 });
  });
});
