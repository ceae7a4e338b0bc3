import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createClient, type ServiceClient } from '@kith/platform';
import { SocialService } from '@kith/proto/social/v1/social';
import { api, newUser, served } from './client.js';
import { GatewayClient, type Dispatch } from './ws-client.js';

/** A registered user: who they are, their token, and (once connected) their gateway socket. */
export interface Person {
  id: string;
  username: string;
  token: string;
}
export interface Online extends Person {
  ws: GatewayClient;
}

/** The relationship object as GET /users/@me/relationships and READY render it. */
export interface Relationship {
  id: string;
  type: number;
  user: { id: string; username: string };
  nickname: string | null;
  is_spam_request: boolean;
  stranger_request: boolean;
  user_ignored: boolean;
  origin_application_id: string | null;
  since: string;
}

/** The edge's port tells the offset the whole system was started with (scripts/processes.mjs). */
export function portOffset(): number {
  return Number(new URL(inject('gatewayOrigin')).port) - 8080;
}

let grpc: ServiceClient<typeof SocialService> | undefined;

/** Social's gRPC API, as other services call it (application authorizations, contact sync, suggestions). */
export function socialGrpc(): ServiceClient<typeof SocialService> {
  grpc ??= createClient(SocialService, `127.0.0.1:${50052 + portOffset()}`, 5000);
  return grpc;
}

export function closeSocialGrpc(): void {
  grpc?.close();
  grpc = undefined;
}

/** A fresh snowflake-shaped id that no user has (18 digits; real ids today have 19). */
export function strangerId(): string {
  return String(100000000000000000n + (BigInt(`0x${randomBytes(7).toString('hex')}`) % 800000000000000000n));
}

export async function person(): Promise<Person> {
  const { username, token } = await newUser();
  const me = await served(() => api('GET', '/users/@me', { token }));
  if (me.status !== 200) throw new Error(`GET /users/@me after register: ${me.status} ${JSON.stringify(me.json)}`);
  return { id: me.json.id as string, username, token };
}

/** `n` of something: a tuple when `n` is a literal, so destructuring needs no `!`. */
export type Tuple<T, N extends number, R extends T[] = []> = number extends N ? T[] : R['length'] extends N ? R : Tuple<T, N, [T, ...R]>;

/** `n` fresh users, registered in parallel. */
export async function people<N extends number>(n: N): Promise<Tuple<Person, N>> {
  return (await Promise.all(Array.from({ length: n }, () => person()))) as Tuple<Person, N>;
}

export async function online(p: Person): Promise<Online> {
  return { ...p, ws: await GatewayClient.connect(p.token) };
}

/** `n` fresh users, each with a gateway connection past READY. */
export async function peopleOnline<N extends number>(n: N): Promise<Tuple<Online, N>> {
  const registered: Person[] = await people(n);
  return (await Promise.all(registered.map(online))) as Tuple<Online, N>;
}

/** What a user's GET /users/@me/relationships answers. */
export async function relationships(p: Person): Promise<Relationship[]> {
  const res = await api('GET', '/users/@me/relationships', { token: p.token });
  if (res.status !== 200) throw new Error(`GET relationships: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json as unknown as Relationship[];
}

export async function rowFor(p: Person, other: Person): Promise<Relationship | undefined> {
  return (await relationships(p)).find((r) => r.id === other.id);
}

/**
 * Everything `p` was sent since the last look, up to a marker. The marker is a friend suggestion
 * of a user who does not exist, added over gRPC: harmless to `p`'s relationships, and its event
 * leaves social's outbox after every event of an action that has already answered, so whatever
 * comes before it is all that action produced for `p`.
 */
export async function settle(p: Online): Promise<Dispatch[]> {
  const nonce = randomUUID();
  await socialGrpc().addFriendSuggestion({
    userId: p.id,
    suggestedUserId: strangerId(),
    reasons: [{ type: 1, platform: 'marker', name: nonce }],
  });
  return p.ws.takeThrough(
    (d) => d.t === 'FRIEND_SUGGESTION_CREATE' && (d.d as { reasons?: { name: string }[] }).reasons?.[0]?.name === nonce,
  );
}

/** A compact signature of a relationship event: `ADD 3 notify`, `REMOVE 1`, `UPDATE 1 nick=x`. */
export function eventSig(d: Dispatch): string {
  const data = d.d as { type?: number; should_notify?: boolean; nickname?: string | null; user_ignored?: boolean };
  const name = d.t.replace(/^RELATIONSHIP_/, '');
  let sig = `${name} ${data.type}`;
  if (data.should_notify !== undefined) sig += data.should_notify ? ' notify' : ' silent';
  if (data.nickname) sig += ` nick=${data.nickname}`;
  if (d.t === 'RELATIONSHIP_UPDATE' && data.user_ignored) sig += ' ignored';
  return sig;
}

/** A compact signature of a row: `-` for none, else `3 stranger ignored`, `1 nick=x`. */
export function rowSig(r: Relationship | undefined): string {
  if (!r) return '-';
  let sig = String(r.type);
  if (r.nickname !== null) sig += ` nick=${r.nickname}`;
  if (r.stranger_request) sig += ' stranger';
  if (r.is_spam_request) sig += ' spam';
  if (r.user_ignored) sig += ' ignored';
  return sig;
}

/** PUT /users/@me/relationships/:id as `from`: sends a request to `to`, or accepts theirs. */
export const put = (from: Person, to: Person, body: unknown = {}) =>
  api('PUT', `/users/@me/relationships/${to.id}`, { token: from.token, body });

/** Makes two users friends through the API: a sends, b accepts. */
export async function befriend(a: Person, b: Person): Promise<void> {
  expectNoContent(await put(a, b));
  expectNoContent(await put(b, a, { confirm_stranger_request: true }));
}

export function expectNoContent(res: { status: number; json: unknown }): void {
  if (res.status !== 204) throw new Error(`expected 204, got ${res.status} ${JSON.stringify(res.json)}`);
}

/** A connection to social's own database (`<DB_PREFIX>_social`), for seeding what the API would take too long to build. */
export function socialDatabase(): pg.Pool {
  const url = new URL(inject('stores').DATABASE_URL);
  url.pathname = `/${inject('dbPrefix')}_social`;
  return new pg.Pool({ connectionString: url.toString(), max: 2 });
}
