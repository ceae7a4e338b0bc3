import { randomBytes } from 'node:crypto';
import { REST, type RESTOptions } from '@discordjs/rest';
import { Agent } from 'undici';
import { WorkQueue } from '@kith/platform';
import { inject } from 'vitest';
import { TRUSTED_PROXY } from './addresses.js';

const agents = new Map<string, Agent>();
/** Connections from one loopback address (127.0.0.0/8 is all ours): the edge sees it as the client's. */
const agentFrom = (localAddress: string): Agent => {
  let agent = agents.get(localAddress);
  if (!agent) agents.set(localAddress, (agent = new Agent({ localAddress })));
  return agent;
};

export interface ApiOptions {
  token?: string;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  base?: string;
  /** Connect from this loopback address (e.g. `127.0.1.7`): another source to the edge. */
  from?: string;
  /** Come through the system's trusted proxy on behalf of this (public) client address. */
  forwardedFor?: string;
}

/** A tiny HTTP client for the gateway, as a browser or curl would use it. */
export async function api(method: string, path: string, opts: ApiOptions = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = opts.token;
  if (opts.forwardedFor) headers['x-forwarded-for'] = opts.forwardedFor;
  const from = opts.forwardedFor ? TRUSTED_PROXY : opts.from;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${opts.base ?? inject('baseUrl')}${path}`, {
    method,
    headers,
    body,
    ...(from ? { dispatcher: agentFrom(from) } : {}),
  } as RequestInit);
  const text = await res.text();
  let json: unknown = undefined;
  if (text) json = JSON.parse(text);
  return { status: res.status, headers: res.headers, json: json as Record<string, unknown> & { errors?: Record<string, unknown> } };
}

export const uniqueName = (prefix = 'u'): string => `${prefix}${randomBytes(6).toString('hex')}`;

/**
 * Setup is not a load test: a test file registers at most this many users at once (each is an
 * argon2 hash), however many its concurrent tests ask for; the rest wait their turn here.
 */
const registrations = new WorkQueue({
  name: 'test registrations',
  concurrency: 4,
  maxWaiting: Number.MAX_SAFE_INTEGER,
  maxWaitMs: 600_000,
});

/**
 * For a test's setup: asks again when the system answers 503, after the Retry-After it names, as
 * a real client does (a busy system sheds load that way); a few times at most.
 */
export async function served(ask: () => ReturnType<typeof api>) {
  for (let attempt = 1; ; attempt++) {
    const res = await ask();
    if (res.status !== 503 || attempt === 5) return res;
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
  }
}

/** Registers a fresh user (on the e2e system unless `base` names another) and returns its credentials. */
export async function newUser(password = 'correct horse battery', base?: string) {
  const username = uniqueName();
  const email = `${username}@example.com`;
  const body = { username, email, password, date_of_birth: '1990-05-17', consent: true };
  const res = await registrations.run(() => served(() => api('POST', '/auth/register', { base, body })));
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.json)}`);
  return { username, email, password, token: res.json.token as string };
}

/** The code of the first form error on a field: `errors.<field>._errors[0].code`. */
export function fieldCode(json: { errors?: Record<string, unknown> }, field: string): string | undefined {
  const node = json.errors?.[field] as { _errors?: { code: string }[] } | undefined;
  return node?._errors?.[0]?.code;
}

/**
 * `@discordjs/rest` signed in as a user account. The library puts a scheme before every token
 * (`Bot` unless told otherwise) and the platform refuses a user's token under one, so the scheme
 * is left empty: the space left before the token is dropped from the header value, as HTTP does.
 */
export function userRest(token: string, options: Partial<RESTOptions> = {}): REST {
  return new REST({
    api: `${inject('gatewayOrigin')}/api`,
    version: '10',
    authPrefix: '' as RESTOptions['authPrefix'],
    ...options,
  }).setToken(token);
}
