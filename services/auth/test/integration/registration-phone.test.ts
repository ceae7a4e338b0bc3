import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness, PASSWORD, expectFormError, registration } from './auth.harness.js';
import { newPhone, TwilioPeer } from './delivery.peers.js';

let auth: AuthHarness;
let twilio: TwilioPeer;

const FROM = '+15005550006';

beforeAll(async () => {
  twilio = await TwilioPeer.start();
  auth = await AuthHarness.start(twilio.env(FROM));
});

afterAll(async () => {
  await auth?.close();
  await twilio?.close();
});

/** A documentation-range address of its own, so per-address limits of one test do not touch another. */
const newIp = () => `198.51.${randomInt(0, 256)}.${randomInt(1, 255)}`;

const sendCode = (phone: unknown, clientIp = newIp()) =>
  auth.request('POST', '/auth/register/phone', { identity: { clientIp }, body: { phone } });
const verify = (phone: unknown, code: unknown) =>
  auth.request<{ token: string }>('POST', '/phone-verifications/verify', { body: { phone, code } });

async function phoneToken(phone: string): Promise<string> {
  expect((await sendCode(phone)).status).toBe(204);
  const reply = await verify(phone, await twilio.codeSentTo(phone));
  expect(reply.status).toBe(200);
  return reply.body.token;
}

describe('phone registration through the loopback SMS provider', () => {
  it('when the texted code is verified and registered with, then the account logs in with its phone number', async () => {
    const phone = newPhone();
    expect((await sendCode(phone)).status).toBe(204);
    const [sms] = await twilio.messagesTo(phone);
    expect(sms).toMatchObject({ to: phone, from: FROM, body: expect.stringMatching(/\b\d{6}\b/) });

    const verified = await verify(phone, await twilio.codeSentTo(phone));
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });

    const reply = await auth.request<{ token: string }>('POST', '/auth/register', {
      body: registration({ email: undefined, phone_token: verified.body.token }),
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const me = await auth.request('GET', '/users/@me', { identity: await auth.identityOf(reply.body.token) });
    expect(me.body).toMatchObject({ phone, email: null });

    const login = await auth.login(phone, PASSWORD);
    expect(login.identity.userId).toBe((me.body as { id: string }).id);
  });

  it('when a phone token is registered with twice, then the second registration is refused on phone_token', async () => {
    const token = await phoneToken(newPhone());
    await auth.register({ email: undefined, phone_token: token });
    expectFormError(await auth.request('POST', '/auth/register', { body: registration({ phone_token: token }) }), {
      phone_token: 'PHONE_TOKEN_INVALID',
    });
  });

  it('when the number already has an account, then sending a code answers the same, and registering says it is registered', async () => {
    const phone = newPhone();
    await auth.register({ email: undefined, phone_token: await phoneToken(phone) });
    expect((await sendCode(phone)).status).toBe(204);
    const again = await verify(phone, await twilio.codeSentTo(phone, 2));
    expect(again.status).toBe(200);
    expectFormError(
      await auth.request('POST', '/auth/register', { body: registration({ email: undefined, phone_token: again.body.token }) }),
      {
        phone: 'PHONE_ALREADY_REGISTERED',
      },
    );
  });

  it('when registering fails for another reason, then the phone token stays usable', async () => {
    const token = await phoneToken(newPhone());
    const taken = await auth.register();
    expectFormError(
      await auth.request('POST', '/auth/register', {
        body: registration({ email: undefined, phone_token: token, username: taken.username }),
      }),
      {
        username: 'USERNAME_ALREADY_TAKEN',
      },
    );
    await auth.register({ email: undefined, phone_token: token });
  });

  it('when the phone token is unknown, then 400 50035 PHONE_TOKEN_INVALID', async () => {
    expectFormError(await auth.request('POST', '/auth/register', { body: registration({ email: undefined, phone_token: 'nope' }) }), {
      phone_token: 'PHONE_TOKEN_INVALID',
    });
  });
});

describe('POST /auth/register/phone', () => {
  it('when the number is not E.164 or cannot exist, then 400 50035 PHONE_NUMBER_INVALID and nothing is sent', async () => {
    const before = twilio.received.length;
    for (const phone of ['4155550123', '+1 415 555 0123', '+10000000000', '+1415555012a'])
      expectFormError(await sendCode(phone), { phone: 'PHONE_NUMBER_INVALID' });
    expect(twilio.received.length).toBe(before);
  });

  it('when the phone is missing or not a string, or the JSON is malformed, then 400 with the platform codes', async () => {
    expectFormError(await sendCode(undefined), { phone: 'BASE_TYPE_REQUIRED' });
    expectFormError(await sendCode(14155550123), { phone: 'BASE_TYPE_STRING' });
    const malformed = await auth.request('POST', '/auth/register/phone', { rawBody: '{"phone"' });
    expect(malformed.body).toMatchObject({ code: 50109 });
  });

  it('when a number asks for a fourth code within ten minutes, then 429 with the rate-limit body and headers', async () => {
    const phone = newPhone();
    for (let i = 0; i < 3; i++) expect((await sendCode(phone)).status).toBe(204);
    const reply = await sendCode(phone);
    expect(reply.status).toBe(429);
    expect(reply.body).toEqual({ message: 'You are being rate limited.', retry_after: expect.any(Number), global: false });
    expect((reply.body as { retry_after: number }).retry_after).toBeGreaterThan(0);
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(reply.headers.get('x-ratelimit-limit')).toBe('3');
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(reply.headers.get('x-ratelimit-scope')).toBe('user');
    expect(reply.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    expect(Number(reply.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect((await twilio.messagesTo(phone, 4, 300)).length).toBe(3);
  });

  it('when one address asks for codes for eleven numbers within an hour, then the eleventh is 429', async () => {
    const ip = newIp();
    for (let i = 0; i < 10; i++) expect((await sendCode(newPhone(), ip)).status).toBe(204);
    expect((await sendCode(newPhone(), ip)).status).toBe(429);
  });

  it('when the provider refuses the text, then 400 50035 PHONE_NUMBER_UNABLE_TO_SEND', async () => {
    twilio.failWith = { status: 400, code: 21614, message: "'To' number is not a valid mobile number" };
    try {
      expectFormError(await sendCode(newPhone()), { phone: 'PHONE_NUMBER_UNABLE_TO_SEND' });
    } finally {
      twilio.failWith = undefined;
    }
  });
});

describe('POST /phone-verifications/verify', () => {
  it('when the code is wrong, then 400 50035 on code; the right code still works afterwards', async () => {
    const phone = newPhone();
    await sendCode(phone);
    const code = await twilio.codeSentTo(phone);
    const wrong = code === '000000' ? '000001' : '000000';
    expectFormError(await verify(phone, wrong), { code: 'PHONE_VERIFICATION_CODE_INVALID' });
    expect((await verify(phone, code)).status).toBe(200);
  });

  it('when a code was already used, then it is refused', async () => {
    const phone = newPhone();
    await sendCode(phone);
    const code = await twilio.codeSentTo(phone);
    expect((await verify(phone, code)).status).toBe(200);
    expectFormError(await verify(phone, code), { code: 'PHONE_VERIFICATION_CODE_INVALID' });
  });

  it('when the code belongs to another number or none was sent, then it is refused', async () => {
    const phone = newPhone();
    await sendCode(phone);
    expectFormError(await verify(newPhone(), await twilio.codeSentTo(phone)), { code: 'PHONE_VERIFICATION_CODE_INVALID' });
  });

  it('when a sixth guess is made within the window, then 429 even for the right code', async () => {
    const phone = newPhone();
    await sendCode(phone);
    const code = await twilio.codeSentTo(phone);
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++) expect((await verify(phone, wrong)).status).toBe(400);
    expect((await verify(phone, code)).status).toBe(429);
  });

  it('when fields are missing or malformed, then 400 with the platform codes', async () => {
    expectFormError(await verify(undefined, undefined), { phone: 'BASE_TYPE_REQUIRED', code: 'BASE_TYPE_REQUIRED' });
    expectFormError(await verify('123', '123456'), { phone: 'PHONE_NUMBER_INVALID' });
    const malformed = await auth.request('POST', '/phone-verifications/verify', { rawBody: '[' });
    expect(malformed.body).toMatchObject({ code: 50109 });
  });
});
