import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { api, fieldCode, newUser, userRest } from './client.js';
import { portOffset } from './social.fixtures.js';

/**
 * Device push tokens the platform's way: Register Device (`POST /users/@me/devices`) per session,
 * Unregister Device, and Logout unregistering the token it names; what a push sender would read is
 * auth's ListPushDevices.
 */

const auth = createClient(AuthService, `127.0.0.1:${50051 + portOffset()}`, 5000);
afterAll(() => auth.close());

const deviceToken = () => randomBytes(32).toString('hex');

async function signedIn() {
  const user = await newUser();
  const me = await api('GET', '/users/@me', { token: user.token });
  return { ...user, id: me.json.id as string };
}

/** Each login from its own loopback address, so the edge's per-source login limit is not what a test measures. */
async function login(email: string, password: string): Promise<string> {
  const from = `127.0.${randomBytes(1)[0]! % 200}.${(randomBytes(1)[0]! % 250) + 2}`;
  const res = await api('POST', '/auth/login', { body: { login: email, password }, from });
  expect(res.status).toBe(200);
  return res.json.token as string;
}

async function sessionHashes(token: string): Promise<string[]> {
  const res = await api('GET', '/auth/sessions', { token });
  return (res.json.user_sessions as { id_hash: string }[]).map((s) => s.id_hash);
}

const devicesOf = async (userId: string) => (await auth.listPushDevices({ userId })).devices;
const pushed = async (userId: string) => (await devicesOf(userId)).map((d) => `${d.provider}:${d.token}`).sort();

describe.concurrent('POST /users/@me/devices', () => {
  it('when a client registers its device and VoIP tokens, then both are the session’s, as @discordjs/rest sends them', async () => {
    const user = await signedIn();
    const [token, voip] = [deviceToken(), deviceToken()];
    await userRest(user.token, { retries: 0 }).post('/users/@me/devices', {
      body: { provider: 'apns', token, voip_provider: 'apns_voip', voip_token: voip, bundle_id: 'com.discord' },
    });
    const [hash] = await sessionHashes(user.token);
    const devices = await devicesOf(user.id);
    expect(devices).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ provider: 'apns', token, sessionIdHash: hash, bundleId: 'com.discord' }),
        expect.objectContaining({ provider: 'apns_voip', token: voip, sessionIdHash: hash }),
      ]),
    );
    expect(devices).toHaveLength(2);
  });

  it('when the body is bad, then 50035 on the field and nothing is registered; without a token, 401', async () => {
    const user = await signedIn();
    const token = deviceToken();
    const cases: [unknown, string, string][] = [
      [{ provider: 'carrier-pigeon', token }, 'provider', 'BASE_TYPE_CHOICES'],
      [{ provider: 'gcm' }, 'token', 'BASE_TYPE_REQUIRED'],
      [{ provider: 'gcm', token: '' }, 'token', 'BASE_TYPE_MIN_LENGTH'],
      [{ provider: 'apns', token, voip_provider: 'apns_voip' }, 'voip_token', 'BASE_TYPE_REQUIRED'],
      [{ provider: 'apns', token, voip_token: token }, 'voip_provider', 'BASE_TYPE_REQUIRED'],
    ];
    for (const [body, field, code] of cases) {
      const res = await api('POST', '/users/@me/devices', { token: user.token, body });
      expect([res.status, res.json.code], JSON.stringify(body)).toEqual([400, 50035]);
      expect(fieldCode(res.json, field), JSON.stringify(body)).toBe(code);
    }
    const broken = await api('POST', '/users/@me/devices', { token: user.token, raw: '{"provider":' });
    expect([broken.status, broken.json.code]).toEqual([400, 50109]);
    expect((await api('POST', '/users/@me/devices', { body: { provider: 'gcm', token } })).status).toBe(401);
    expect(await pushed(user.id)).toEqual([]);
  });

  it('when the same device registers from another session or account, then it moves there and is held once', async () => {
    const user = await signedIn();
    const other = await signedIn();
    const token = deviceToken();
    expect((await api('POST', '/users/@me/devices', { token: user.token, body: { provider: 'gcm', token } })).status).toBe(204);
    const second = await login(user.email, user.password);
    expect((await api('POST', '/users/@me/devices', { token: second, body: { provider: 'gcm', token } })).status).toBe(204);
    const devices = await devicesOf(user.id);
    expect(devices).toHaveLength(1);
    expect(await sessionHashes(second)).toContain(devices[0]!.sessionIdHash);
    expect((await api('POST', '/users/@me/devices', { token: other.token, body: { provider: 'gcm', token } })).status).toBe(204);
    expect(await pushed(user.id)).toEqual([]);
    expect(await pushed(other.id)).toEqual([`gcm:${token}`]);
  });
});

describe('registering at once', () => {
  it('when eight sessions register one device token concurrently, then exactly one of them holds it', async () => {
    const user = await signedIn();
    const sessions = await Promise.all(Array.from({ length: 8 }, () => login(user.email, user.password)));
    const token = deviceToken();
    const answers = await Promise.all(
      sessions.map((s) => api('POST', '/users/@me/devices', { token: s, body: { provider: 'gcm', token } })),
    );
    expect(answers.map((a) => a.status)).toEqual(sessions.map(() => 204));
    const devices = await devicesOf(user.id);
    expect(devices).toHaveLength(1);
    const holders = await Promise.all(sessions.map(async (s) => (await sessionHashes(s)).includes(devices[0]!.sessionIdHash)));
    expect(holders.every(Boolean)).toBe(true);
  });
});

describe.concurrent('unregistering', () => {
  it('when the device unregisters, then its token is gone; another user naming it changes nothing', async () => {
    const user = await signedIn();
    const stranger = await signedIn();
    const token = deviceToken();
    await api('POST', '/users/@me/devices', { token: user.token, body: { provider: 'gcm', token } });
    const theirs = await api('DELETE', '/users/@me/devices', { token: stranger.token, body: { provider: 'gcm', token } });
    expect(theirs.status).toBe(204);
    expect(await pushed(user.id)).toEqual([`gcm:${token}`]);
    const bad = await api('DELETE', '/users/@me/devices', { token: user.token, body: { provider: 'fax', token } });
    expect([bad.status, bad.json.code]).toEqual([400, 50035]);
    expect((await api('DELETE', '/users/@me/devices', { token: user.token, body: { provider: 'gcm', token } })).status).toBe(204);
    expect(await pushed(user.id)).toEqual([]);
  });

  it('when a device logs out naming its token, then that token is unregistered even if another session held it, and the session’s own go too', async () => {
    const user = await signedIn();
    const phone = await login(user.email, user.password);
    const [mine, voip, elsewhere, kept] = [deviceToken(), deviceToken(), deviceToken(), deviceToken()];
    await api('POST', '/users/@me/devices', {
      token: phone,
      body: { provider: 'apns', token: mine, voip_provider: 'apns_voip', voip_token: voip },
    });
    await api('POST', '/users/@me/devices', { token: user.token, body: { provider: 'gcm', token: elsewhere } });
    await api('POST', '/users/@me/devices', { token: user.token, body: { provider: 'gcm', token: kept } });
    const out = await api('POST', '/auth/logout', { token: phone, body: { provider: 'gcm', token: elsewhere } });
    expect(out.status).toBe(204);
    expect(await pushed(user.id)).toEqual([`gcm:${kept}`]);
    expect((await api('POST', '/users/@me/devices', { token: phone, body: { provider: 'gcm', token: mine } })).status).toBe(401);
    expect(await pushed(user.id)).toEqual([`gcm:${kept}`]);
  });

  it('when another session logs a device’s session out, then that device is pushed to no more', async () => {
    const user = await signedIn();
    const phone = await login(user.email, user.password);
    const token = deviceToken();
    await api('POST', '/users/@me/devices', { token: phone, body: { provider: 'gcm', token } });
    const [phoneHash] = (await devicesOf(user.id)).map((d) => d.sessionIdHash);
    const res = await api('POST', '/auth/sessions/logout', { token: user.token, body: { session_id_hashes: [phoneHash] } });
    expect(res.status).toBe(204);
    expect(await pushed(user.id)).toEqual([]);
  });
});
