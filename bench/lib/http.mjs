// The load generator's own HTTP client and the user set-up the WebSocket benchmarks share.
// node:http with keep-alive: lighter than fetch in the load generator, which shares the 2 cores.
import { randomBytes } from 'node:crypto';
import http from 'node:http';

export const HTTP_TIMEOUT_MS = 30_000;

/**
 * One request through `agent` (a keep-alive http.Agent); never rejects: a failure resolves with
 * status 0 and the error as body. `at` is when the answer was complete (performance.now()).
 */
export function request(agent, baseUrl, method, apiPath, token, body) {
  const url = new URL(baseUrl + apiPath);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method,
        path: url.pathname + url.search,
        headers: {
          ...(token ? { authorization: token } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
        timeout: HTTP_TIMEOUT_MS,
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, at: performance.now(), body: Buffer.concat(chunks).toString() }));
        res.on('error', (err) => resolve({ status: 0, at: performance.now(), body: err.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ status: 0, at: performance.now(), body: err.message }));
    req.end(payload);
  });
}

/** Runs `fn(i)` for i in [0, count) with at most `parallel` in flight. */
export async function pool(count, parallel, fn) {
  let next = 0;
  const worker = async () => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
}

/**
 * Registers `count` users through the gateway, `parallel` at a time, with `send(method, path,
 * token, body)` (the script's request bound to its agent and base URL): [{ i, username, token, id }].
 * Usernames are `<prefix><run>_<i>`, the run a random hex tag so runs never collide.
 */
export async function registerUsers(send, count, { prefix, parallel }) {
  const run = randomBytes(3).toString('hex');
  const users = new Array(count);
  await pool(count, parallel, async (i) => {
    const username = `${prefix}${run}_${i}`;
    const res = await send('POST', '/auth/register', undefined, {
      username,
      email: `${username}@example.com`,
      password: `bench password ${run} ${i}`,
      date_of_birth: '1990-05-17',
      consent: true,
    });
    if (res.status !== 201) throw new Error(`register ${username}: ${res.status} ${res.body.slice(0, 200)}`);
    const { token } = JSON.parse(res.body);
    // The token's first part is the user id (base64url); every READY confirms it later.
    users[i] = { i, username, token, id: Buffer.from(token.split('.')[0], 'base64url').toString() };
  });
  return users;
}
