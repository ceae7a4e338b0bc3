import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './gateway.client.js';
import { SlowLink } from './slow-link.js';
import { newSession, newUser, sleep, startStack, startTestRealtime, stopStack, type RealtimeUnderTest, type Stack } from './harness.js';

/**
 * Identify racing a logout of the same token (issue 12, finding 4): the connection must never
 * outlive the session. Each trial logs the token out at a slightly different moment of the
 * Identify, through the real auth, edge, outbox relay, NATS and realtime.
 */
const TRIALS = 96;
/** Trials run this many at once: the machine is shared, and the race needs no more. */
const PARALLEL = 8;

let stack: Stack;
let realtime: RealtimeUnderTest;
let link: SlowLink;

beforeAll(async () => {
  // A token not used for a while (the interval) is touched on use: an Identify with it then
  // waits for the logout's row lock and sees the session valid just as the logout commits.
  stack = await startStack({ SESSION_TOUCH_INTERVAL_MS: '0' });
  // Realtime reaches NATS over a slow link: what it reads of the stream is a little behind.
  link = await SlowLink.start(stack.under.stores.NATS_URL, 15);
  realtime = await startTestRealtime(stack, { NATS_URL: link.url });
});

afterAll(async () => {
  await stopStack(stack);
  await link?.stop();
});

const api = (path: string, token: string, method: string, body?: unknown) =>
  fetch(`${stack.gateway.base}/api/v9${path}`, {
    method,
    headers: { authorization: token, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/**
 * One trial: Identify with a token while it is logged out, then a probe event for the user from
 * another session, written after the logout (the outbox publishes it after the logout's event).
 * 'closed' when the racing socket ended before the probe reached it; 'survived' when it got it;
 * 'stuck' when neither happened.
 */
async function trial(i: number): Promise<'closed' | 'survived' | 'stuck'> {
  const user = await newUser(stack);
  const other = await newSession(stack, user);
  const client = await GatewayClient.connect(realtime.url);
  await client.next((f) => f.op === 10);
  const identify = async () => {
    // Spread over the time a logout takes, so that it lands at every step of the Identify.
    await sleep((i * 7) % 40);
    client.send(2, { token: user.token, properties: { os: 'Linux', browser: 'race' } });
  };
  const [, logout] = await Promise.all([identify(), api('/auth/logout', user.token, 'POST', {})]);
  expect(logout.status).toBe(204);
  const probe = `probe${i}${Date.now() % 100000}`;
  const patched = await api('/users/@me', other.token, 'PATCH', { global_name: probe });
  expect(patched.status).toBe(200);
  const outcome = await Promise.race([
    client.closed.then(() => 'closed' as const),
    client
      .next((f) => f.t === 'USER_UPDATE' && (f.d as { global_name?: string }).global_name === probe, 15_000)
      .then(() => 'survived' as const),
  ]).catch(() => (client.ws.readyState === client.ws.CLOSED ? ('closed' as const) : ('stuck' as const)));
  if (outcome === 'closed') {
    const { code } = await client.closed;
    // Refused at Identify, or closed by the revocation: either way the session's end is seen.
    expect(code).toBe(4004);
    expect(client.dispatches().filter((f) => f.t !== 'AUTH_SESSION_CHANGE')).toEqual([]);
  }
  client.close();
  return outcome;
}

describe('Identify racing a logout', () => {
  it('when a token is logged out while it identifies, then the socket never outlives the session (every trial)', async () => {
    const outcomes: string[] = [];
    for (let start = 0; start < TRIALS; start += PARALLEL) {
      outcomes.push(...(await Promise.all(Array.from({ length: PARALLEL }, (_, j) => trial(start + j)))));
    }
    expect(outcomes.filter((o) => o !== 'closed')).toEqual([]);
    expect(outcomes).toHaveLength(TRIALS);
  }, 240_000);
});
