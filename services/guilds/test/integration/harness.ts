import {
  SnowflakeGenerator,
  createClient,
  createDatabase,
  databaseUrl,
  sql,
  type EventEnvelope,
  type Kysely,
  type ServiceClient,
} from '@kith/platform';
import { testDbPrefix } from '@kith/platform/testing';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import {
  api,
  newUser,
  serviceEnv,
  startTestAuth,
  startTestGateway,
  stopAll,
  type Answer,
  type AuthUnderTest,
  type StackUser,
} from '../../../../gateway/test/integration/harness.js';
import { startGuilds, type RunningGuilds } from '../../src/app.js';
import { guildsConfigSchema } from '../../src/config.js';
import type { GuildsDatabase } from '../../src/store/schema.js';

export { api, newUser, stopAll, type Answer, type AuthUnderTest, type StackUser };

/** Tests read response bodies and event payloads freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;

/** The guilds service's test database: `<DB_PREFIX>_guilds`. */
const DB_PREFIX = testDbPrefix();
export const GUILDS_DATABASE = `${DB_PREFIX}_guilds`;

/**
 * Real auth, the guilds service in this process (its own database, HTTP and gRPC on free ports),
 * an edge in front of both, a gRPC client of guilds, and a connection to its database to read the
 * outbox with.
 */
export interface GuildsStack {
  under: AuthUnderTest;
  guilds: RunningGuilds;
  gateway: Awaited<ReturnType<typeof startTestGateway>>;
  /** The edge's base URL: requests go to `${base}/api/v9/...`. */
  base: string;
  grpc: ServiceClient<typeof GuildsService>;
  db: Kysely<GuildsDatabase>;
}

/** A guilds service in this process beside `under` (free ports, the run's database prefix): other services' stacks start it too. */
export function startTestGuilds(under: AuthUnderTest, env: Record<string, string> = {}): Promise<RunningGuilds> {
  return startGuilds(guildsConfigSchema.parse({ ...serviceEnv(under), ...env }));
}

export async function startGuildsStack(env: Record<string, string> = {}): Promise<GuildsStack> {
  const under = await startTestAuth();
  const guilds = await startTestGuilds(under, env);
  const gateway = await startTestGateway(under, { GUILDS_HTTP_URL: `http://127.0.0.1:${guilds.httpPort}` });
  const grpc = createClient(GuildsService, `127.0.0.1:${guilds.grpcPort}`, 10_000);
  const db = createDatabase<GuildsDatabase>({ url: databaseUrl(under.stores.DATABASE_URL, GUILDS_DATABASE), maxConnections: 2 });
  return { under, guilds, gateway, base: gateway.base, grpc, db };
}

export async function stopGuildsStack(stack: GuildsStack | undefined): Promise<void> {
  if (!stack) return;
  stack.grpc.close();
  await stack.db.destroy();
  await stopAll(stack.gateway.closers, stack.guilds.closers, stack.under.auth.closers);
}

/** Ids for rows a test writes directly (its own random worker bits, so they do not collide with the service's). */
export const testIds = new SnowflakeGenerator();

export type GuildsUser = StackUser;

/** Sends a raw (possibly broken) JSON body through the edge. */
export async function sendRaw(stack: GuildsStack, user: { token: string }, method: string, path: string, body: string) {
  const res = await fetch(`${stack.base}/api/v9${path}`, {
    method,
    headers: { authorization: user.token, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, body: (await res.json()) as Body };
}

/** Creates a guild as `owner` and returns its object (throws unless 201). */
export async function createGuild(stack: GuildsStack, owner: { token: string }, name = 'test guild'): Promise<Body> {
  const res = await api(stack, owner, 'POST', '/guilds', { name });
  if (res.status !== 201) throw new Error(`create guild answered ${res.status}: ${res.text}`);
  return res.body;
}

/** Joins `user` to a guild as an invite would (gRPC AddMember); throws when refused. */
export async function join(stack: GuildsStack, guildId: string, user: { userId: string }): Promise<void> {
  const answer = await stack.grpc.addMember({ guildId, userId: user.userId });
  if (answer.errorCode !== 0) throw new Error(`AddMember refused with ${answer.errorCode}`);
}

/** Creates a role as `owner` (its permissions a bitfield) and gives it to `member`; returns the role. */
export async function grantRole(
  stack: GuildsStack,
  owner: GuildsUser,
  guildId: string,
  member: GuildsUser,
  permissions: bigint,
  name = 'granted',
): Promise<Body> {
  const role = await api(stack, owner, 'POST', `/guilds/${guildId}/roles`, { name, permissions: permissions.toString() });
  if (role.status !== 200) throw new Error(`create role answered ${role.status}: ${role.text}`);
  const put = await api(stack, owner, 'PUT', `/guilds/${guildId}/members/${member.userId}/roles/${role.body.id}`);
  if (put.status !== 204) throw new Error(`add role answered ${put.status}: ${put.text}`);
  return role.body;
}

/**
 * The events the guilds service wrote to its outbox (whether or not the relay has published them
 * yet), oldest first; `filter` narrows by name and by a predicate on the envelope.
 */
export async function outboxEvents<T = Body>(
  stack: GuildsStack,
  name: string,
  where: (e: EventEnvelope<T>) => boolean = () => true,
): Promise<EventEnvelope<T>[]> {
  const { rows } = await sql<{ envelope: EventEnvelope<T> }>`
    SELECT envelope FROM outbox WHERE subject = ${`events.guilds.${name}`} ORDER BY seq`.execute(stack.db);
  return rows.map((r) => r.envelope).filter(where);
}
