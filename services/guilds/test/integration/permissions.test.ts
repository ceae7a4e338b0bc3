import { credentials, Client, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  createClient,
  createDatabase,
  databaseUrl,
  SERVICE_TOKEN_METADATA,
  serviceCalls,
  SnowflakeGenerator,
  sql,
  type Kysely,
  type ServiceClient,
} from '@kith/platform';
import { testDbPrefix, testKeys } from '@kith/platform/testing';
import {
  CheckPermissionsRequestSchema,
  CheckPermissionsResponseSchema,
  GuildsService,
  type CheckPermissionsRequest,
} from '@kith/proto/guilds/v1/guilds';
import { inject } from 'vitest';
import { startGuilds, type RunningGuilds } from '../../src/app.js';
import { guildsConfigSchema } from '../../src/config.js';
import { ALL_PERMISSIONS, Permission as P } from '../../src/domain/permissions.js';
import { PgAccess } from '../../src/store/access.store.js';
import type { GuildsDatabase } from '../../src/store/schema.js';

// CheckPermissions through a real gRPC client against the guilds service on real PostgreSQL. The
// guilds, roles, channels and overwrites are rows written straight into the service's database
// (the REST endpoints that make them are built elsewhere); every change below goes through the
// database too, so the cache must learn of it from the versions the triggers move.

const DB_PREFIX = testDbPrefix('perm');
const ids = new SnowflakeGenerator();

let services: RunningGuilds[] = [];
let clients: ServiceClient<typeof GuildsService>[] = [];
let db: Kysely<GuildsDatabase>;
let grpcAddress: string;

beforeAll(async () => {
  const stores = inject('stores');
  const config = guildsConfigSchema.parse({
    ...stores,
    HTTP_PORT: '0',
    GRPC_PORT: '0',
    DB_PREFIX,
    LOG_LEVEL: process.env.PERM_LOG ?? 'silent',
    INTERNAL_TOKEN_PUBLIC_KEY: testKeys().publicKey,
  });
  // Two replicas over one database: a change must be seen by both, whichever cached what.
  services = [await startGuilds(config), await startGuilds(config)];
  clients = services.map((s) => createClient(GuildsService, `127.0.0.1:${s.grpcPort}`));
  grpcAddress = `127.0.0.1:${services[0]!.grpcPort}`;
  db = createDatabase<GuildsDatabase>({ url: databaseUrl(stores.DATABASE_URL, `${DB_PREFIX}_guilds`), maxConnections: 4 });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await db?.destroy();
  // Each replica's closers in their order (stop accepting, drain, close the stores).
  for (const s of services) for (const close of s.closers) await close().catch(() => undefined);
});

/** A guild with its @everyone role, an owner who is a member, and `members` joined with no roles. */
async function guild(everyone: bigint, members: string[] = []) {
  const guildId = ids.next();
  const ownerId = ids.next();
  await db.insertInto('guilds').values({ id: guildId, name: 'g', owner_id: ownerId }).execute();
  await db.insertInto('roles').values({ id: guildId, guild_id: guildId, name: '@everyone', permissions: everyone }).execute();
  for (const userId of [ownerId, ...members]) await db.insertInto('members').values({ guild_id: guildId, user_id: userId }).execute();
  return { guildId, ownerId };
}
async function role(guildId: string, permissions: bigint, holders: string[] = []): Promise<string> {
  const id = ids.next();
  await db.insertInto('roles').values({ id, guild_id: guildId, name: 'r', permissions }).execute();
  for (const userId of holders) await db.insertInto('member_roles').values({ guild_id: guildId, user_id: userId, role_id: id }).execute();
  return id;
}
async function channel(guildId: string | null, type = 0, parentId: string | null = null): Promise<string> {
  const id = ids.next();
  await db.insertInto('channels').values({ id, guild_id: guildId, type, parent_id: parentId, name: 'c' }).execute();
  return id;
}
async function overwrite(channelId: string, targetId: string, type: 0 | 1, allow: bigint, deny: bigint): Promise<void> {
  await db
    .insertInto('permission_overwrites')
    .values({ channel_id: channelId, target_id: targetId, type, allow, deny })
    .onConflict((oc) => oc.columns(['channel_id', 'target_id']).doUpdateSet({ allow, deny }))
    .execute();
}

/** Asks every replica; they must agree. */
async function check(userId: string, guildId: string, channelId = '', required = '0') {
  const answers = await Promise.all(clients.map((c) => c.checkPermissions({ userId, guildId, channelId, required })));
  for (const a of answers)
    expect({ ...a }).toMatchObject({ member: answers[0]!.member, allowed: answers[0]!.allowed, permissions: answers[0]!.permissions });
  const { member, allowed, permissions } = answers[0]!;
  return { member, allowed, permissions: BigInt(permissions) };
}

const NOTHING = { member: false, allowed: false, permissions: 0n };

/** Until `n` statements on this test's database wait for a lock (the test's own timeout bounds it). */
async function lockWaiters(n: number): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ waiting: string }>`
      SELECT count(*) AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(db);
    if (Number(rows[0]!.waiting) >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('CheckPermissions: who is not a member of what', () => {
  it('an unknown guild, a non-member, an unknown channel, a channel of another guild, a DM: member false, nothing allowed', async () => {
    const me = ids.next();
    const { guildId } = await guild(P.VIEW_CHANNEL, [me]);
    const other = await guild(P.VIEW_CHANNEL, [me]);
    const theirs = await channel(other.guildId);
    const dm = await channel(null, 1);
    expect(await check(me, ids.next())).toEqual(NOTHING);
    expect(await check(ids.next(), guildId)).toEqual(NOTHING);
    expect(await check(me, guildId, ids.next())).toEqual(NOTHING);
    expect(await check(me, guildId, theirs)).toEqual(NOTHING);
    expect(await check(me, guildId, dm)).toEqual(NOTHING);
    // Ids that are not snowflakes name nothing (and never reach PostgreSQL as a cast error).
    expect(await check('me', guildId)).toEqual(NOTHING);
    expect(await check(me, 'not-a-guild')).toEqual(NOTHING);
    expect(await check(me, guildId, '99999999999999999999')).toEqual(NOTHING);
    // The same user is a member where they are one.
    expect(await check(me, other.guildId, theirs, String(P.VIEW_CHANNEL))).toEqual({
      member: true,
      allowed: true,
      permissions: P.VIEW_CHANNEL,
    });
  });

  it('a required value that is not a bitfield is INVALID_ARGUMENT with the platform body (50035)', async () => {
    const { guildId, ownerId } = await guild(0n);
    for (const required of ['abc', '-1', '1.5', '18446744073709551616', '0x10']) {
      const err = await clients[0]!.checkPermissions({ userId: ownerId, guildId, channelId: '', required }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(400);
      expect((err as ApiError).body).toMatchObject({ code: 50035, errors: { required: { _errors: [{ code: 'NUMBER_TYPE_COERCE' }] } } });
    }
    // The gRPC status itself, as a client that knows nothing of our error metadata sees it (it
    // carries the service token every caller must).
    const raw = new Client(grpcAddress, credentials.createInsecure());
    const metadata = new Metadata();
    metadata.set(SERVICE_TOKEN_METADATA, `Bearer ${serviceCalls.tokenFor('guilds.v1.GuildsService')}`);
    const err = await new Promise<ServiceError>((resolve, reject) =>
      raw.makeUnaryRequest(
        '/guilds.v1.GuildsService/CheckPermissions',
        (m: CheckPermissionsRequest) => Buffer.from(toBinary(CheckPermissionsRequestSchema, m)),
        (b: Buffer) => fromBinary(CheckPermissionsResponseSchema, b),
        create(CheckPermissionsRequestSchema, { userId: ownerId, guildId, required: 'lots' }),
        metadata,
        (e) => (e ? resolve(e) : reject(new Error('expected INVALID_ARGUMENT'))),
      ),
    );
    raw.close();
    expect(err.code).toBe(status.INVALID_ARGUMENT);
  });

  it('an empty required asks only for the permissions', async () => {
    const me = ids.next();
    const { guildId } = await guild(P.SEND_MESSAGES, [me]);
    expect(await check(me, guildId, '', '')).toEqual({ member: true, allowed: true, permissions: P.SEND_MESSAGES });
  });
});

describe('CheckPermissions: checks that arrive together share one query', () => {
  it('each of many concurrent checks on one replica gets its own answer, unknown guilds among them', async () => {
    const users = Array.from({ length: 6 }, () => ids.next());
    const guilds = await Promise.all([guild(P.VIEW_CHANNEL, users), guild(P.SEND_MESSAGES, users.slice(0, 3))]);
    const channels = await Promise.all(guilds.map((g) => channel(g.guildId)));
    const cases = users.flatMap((userId) => [
      { userId, guildId: guilds[0]!.guildId, channelId: channels[0]!, expected: P.VIEW_CHANNEL },
      { userId, guildId: guilds[1]!.guildId, channelId: '', expected: users.indexOf(userId) < 3 ? P.SEND_MESSAGES : 0n },
      { userId, guildId: guilds[1]!.guildId, channelId: channels[1]!, expected: 0n },
      { userId, guildId: ids.next(), channelId: '', expected: 0n },
    ]);
    const answers = await Promise.all(cases.map((c) => clients[0]!.checkPermissions({ ...c, required: '0' })));
    expect(answers.map((a) => BigInt(a.permissions))).toEqual(cases.map((c) => c.expected));
  });
});

describe('CheckPermissions: the decision', () => {
  it("guild level: @everyone OR the member's roles; the owner and administrators have everything", async () => {
    const me = ids.next();
    const admin = ids.next();
    const { guildId, ownerId } = await guild(P.VIEW_CHANNEL, [me, admin]);
    await role(guildId, P.KICK_MEMBERS, [me]);
    await role(guildId, P.BAN_MEMBERS);
    await role(guildId, P.ADMINISTRATOR, [admin]);
    expect(await check(me, guildId, '', String(P.KICK_MEMBERS))).toEqual({
      member: true,
      allowed: true,
      permissions: P.VIEW_CHANNEL | P.KICK_MEMBERS,
    });
    expect(await check(me, guildId, '', String(P.KICK_MEMBERS | P.BAN_MEMBERS))).toMatchObject({ member: true, allowed: false });
    expect(await check(ownerId, guildId, '', String(ALL_PERMISSIONS))).toEqual({
      member: true,
      allowed: true,
      permissions: ALL_PERMISSIONS,
    });
    expect(await check(admin, guildId)).toMatchObject({ permissions: ALL_PERMISSIONS });
  });

  it("channel level: overwrites in order; a thread takes its parent's; no VIEW_CHANNEL is nothing", async () => {
    const me = ids.next();
    const { guildId } = await guild(P.VIEW_CHANNEL | P.SEND_MESSAGES | P.SEND_MESSAGES_IN_THREADS, [me]);
    const mod = await role(guildId, 0n, [me]);
    const text = await channel(guildId);
    await overwrite(text, guildId, 0, 0n, P.SEND_MESSAGES | P.VIEW_CHANNEL);
    await overwrite(text, mod, 0, P.VIEW_CHANNEL | P.MANAGE_MESSAGES, 0n);
    await overwrite(text, me, 1, 0n, P.MANAGE_MESSAGES);
    const base = P.VIEW_CHANNEL | P.SEND_MESSAGES_IN_THREADS;
    expect(await check(me, guildId, text, String(P.VIEW_CHANNEL))).toEqual({ member: true, allowed: true, permissions: base });
    const thread = await channel(guildId, 11, text);
    expect(await check(me, guildId, thread, String(P.SEND_MESSAGES))).toEqual({
      member: true,
      allowed: true,
      permissions: base | P.SEND_MESSAGES,
    });
    const hidden = await channel(guildId);
    await overwrite(hidden, guildId, 0, 0n, P.VIEW_CHANNEL);
    expect(await check(me, guildId, hidden, String(P.VIEW_CHANNEL))).toEqual({ member: true, allowed: false, permissions: 0n });
  });
});

describe('CheckPermissions is never stale: every kind of change, through the database, on both replicas', () => {
  async function setup() {
    const me = ids.next();
    const { guildId, ownerId } = await guild(P.VIEW_CHANNEL, [me]);
    const helper = await role(guildId, P.SEND_MESSAGES, [me]);
    const text = await channel(guildId);
    // Warm every replica's caches.
    expect(await check(me, guildId, text)).toMatchObject({ permissions: P.VIEW_CHANNEL | P.SEND_MESSAGES });
    expect(await check(me, guildId)).toMatchObject({ permissions: P.VIEW_CHANNEL | P.SEND_MESSAGES });
    return { me, guildId, ownerId, helper, text };
  }

  it("a role's permissions change (and @everyone's)", async () => {
    const { me, guildId, helper, text } = await setup();
    await db
      .updateTable('roles')
      .set({ permissions: P.SEND_MESSAGES | P.ADD_REACTIONS })
      .where('id', '=', helper)
      .execute();
    expect(await check(me, guildId, text)).toMatchObject({ permissions: P.VIEW_CHANNEL | P.SEND_MESSAGES | P.ADD_REACTIONS });
    await db.updateTable('roles').set({ permissions: 0n }).where('id', '=', guildId).execute();
    expect(await check(me, guildId, text)).toMatchObject({ permissions: 0n });
    expect(await check(me, guildId)).toMatchObject({ permissions: P.SEND_MESSAGES | P.ADD_REACTIONS });
  });

  it('a role is created and given, taken away, deleted', async () => {
    const { me, guildId, helper, text } = await setup();
    const fresh = await role(guildId, P.KICK_MEMBERS, [me]);
    expect(await check(me, guildId)).toMatchObject({ permissions: P.VIEW_CHANNEL | P.SEND_MESSAGES | P.KICK_MEMBERS });
    await db.deleteFrom('member_roles').where('role_id', '=', fresh).execute();
    expect(await check(me, guildId)).toMatchObject({ permissions: P.VIEW_CHANNEL | P.SEND_MESSAGES });
    await db.deleteFrom('roles').where('id', '=', helper).execute();
    expect(await check(me, guildId, text)).toMatchObject({ permissions: P.VIEW_CHANNEL });
  });

  it('a role given to a member whose roles the cache already holds', async () => {
    const { me, guildId } = await setup();
    const unheld = await role(guildId, P.MANAGE_ROLES);
    expect(await check(me, guildId)).toMatchObject({ permissions: P.VIEW_CHANNEL | P.SEND_MESSAGES });
    await db.insertInto('member_roles').values({ guild_id: guildId, user_id: me, role_id: unheld }).execute();
    expect(await check(me, guildId)).toMatchObject({ permissions: P.VIEW_CHANNEL | P.SEND_MESSAGES | P.MANAGE_ROLES });
  });

  it('an overwrite is created, changed, deleted (a thread follows its parent)', async () => {
    const { me, guildId, helper, text } = await setup();
    const thread = await channel(guildId, 11, text);
    await overwrite(text, helper, 0, P.ATTACH_FILES, 0n);
    expect(await check(me, guildId, text)).toMatchObject({ permissions: P.VIEW_CHANNEL | P.SEND_MESSAGES | P.ATTACH_FILES });
    expect(await check(me, guildId, thread)).toMatchObject({ permissions: P.VIEW_CHANNEL });
    await overwrite(text, me, 1, 0n, P.VIEW_CHANNEL);
    expect(await check(me, guildId, text)).toMatchObject({ permissions: 0n });
    expect(await check(me, guildId, thread)).toMatchObject({ permissions: 0n });
    await db
      .updateTable('permission_overwrites')
      .set({ deny: 0n, allow: P.SEND_MESSAGES_IN_THREADS })
      .where('channel_id', '=', text)
      .where('target_id', '=', me)
      .execute();
    expect(await check(me, guildId, thread)).toMatchObject({
      permissions: P.VIEW_CHANNEL | P.SEND_MESSAGES | P.ATTACH_FILES | P.SEND_MESSAGES_IN_THREADS,
    });
    await db.deleteFrom('permission_overwrites').where('channel_id', '=', text).execute();
    expect(await check(me, guildId, text)).toMatchObject({ permissions: P.VIEW_CHANNEL | P.SEND_MESSAGES });
  });

  it('ownership moves', async () => {
    const { me, guildId, ownerId } = await setup();
    expect(await check(ownerId, guildId)).toMatchObject({ permissions: ALL_PERMISSIONS });
    await db.updateTable('guilds').set({ owner_id: me }).where('id', '=', guildId).execute();
    expect(await check(me, guildId)).toMatchObject({ permissions: ALL_PERMISSIONS });
    expect(await check(ownerId, guildId)).toMatchObject({ permissions: P.VIEW_CHANNEL });
  });

  it('a timeout starts and ends; a quarantine flag is set', async () => {
    const { me, guildId, text } = await setup();
    const until = (ms: number) => new Date(Date.now() + ms);
    await db
      .updateTable('members')
      .set({ communication_disabled_until: until(60_000) })
      .where('user_id', '=', me)
      .execute();
    expect(await check(me, guildId, text)).toMatchObject({ permissions: P.VIEW_CHANNEL });
    await db
      .updateTable('members')
      .set({ communication_disabled_until: until(-1000) })
      .where('user_id', '=', me)
      .execute();
    expect(await check(me, guildId, text)).toMatchObject({ permissions: P.VIEW_CHANNEL | P.SEND_MESSAGES });
    await db
      .updateTable('members')
      .set({ flags: 1 << 7 })
      .where('user_id', '=', me)
      .execute();
    expect(await check(me, guildId, text)).toMatchObject({ permissions: P.VIEW_CHANNEL });
  });

  it('the member leaves, the channel goes, the guild goes (its cascades fire the triggers without error)', async () => {
    const { me, guildId, text } = await setup();
    await overwrite(text, me, 1, P.ATTACH_FILES, 0n);
    await db.deleteFrom('channels').where('id', '=', text).execute();
    expect(await check(me, guildId, text)).toEqual(NOTHING);
    await db.deleteFrom('members').where('user_id', '=', me).where('guild_id', '=', guildId).execute();
    expect(await check(me, guildId)).toEqual(NOTHING);
    const other = await channel(guildId);
    await overwrite(other, guildId, 0, P.ATTACH_FILES, 0n);
    await db.deleteFrom('guilds').where('id', '=', guildId).execute();
    expect(await db.selectFrom('roles').select('id').where('guild_id', '=', guildId).execute()).toEqual([]);
    expect(await check(me, guildId)).toEqual(NOTHING);
  });

  it('what a rolled-back transaction read is never served (versions are never reused)', async () => {
    const { me, guildId, helper } = await setup();
    const access = new PgAccess(db);
    expect((await access.guild(guildId, me))?.permissions).toBe(P.VIEW_CHANNEL | P.SEND_MESSAGES);
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('roles').set({ permissions: P.ADMINISTRATOR }).where('id', '=', helper).execute();
        // Read inside the transaction: the cache now holds the uncommitted roles, under the version the transaction took.
        expect((await access.guild(guildId, me, trx))?.permissions).toBe(ALL_PERMISSIONS);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect((await access.guild(guildId, me))?.permissions).toBe(P.VIEW_CHANNEL | P.SEND_MESSAGES);
    await db.updateTable('roles').set({ permissions: P.KICK_MEMBERS }).where('id', '=', helper).execute();
    expect((await access.guild(guildId, me))?.permissions).toBe(P.VIEW_CHANNEL | P.KICK_MEMBERS);
  });

  it('checks in flight while a role changes: each answers a committed state, and every replica the last one after', async () => {
    const { me, guildId, helper, text } = await setup();
    // Each `before` differs from the last `after`: an update to the same bits moves no version.
    const steps: [bigint, bigint][] = [
      [P.ADD_REACTIONS, P.MANAGE_MESSAGES],
      [P.SEND_MESSAGES, P.KICK_MEMBERS],
      [P.MANAGE_MESSAGES, P.SEND_MESSAGES | P.ADD_REACTIONS],
    ];
    for (const [before, after] of steps) {
      // A committed change the replicas' caches have not seen: their next checks must reload the roles.
      await db.updateTable('roles').set({ permissions: before }).where('id', '=', helper).execute();
      const answers = await db.transaction().execute(async (trx) => {
        // The roles stay locked until this transaction ends: each replica's reload waits, mid-check.
        await sql`LOCK TABLE roles IN ACCESS EXCLUSIVE MODE`.execute(trx);
        const checks = Array.from({ length: 16 }, (_, i) =>
          clients[i % clients.length]!.checkPermissions({ userId: me, guildId, channelId: i % 4 ? text : '', required: '0' }),
        );
        // Proof that the checks are under way: each replica has a reload stuck behind the lock.
        await lockWaiters(clients.length);
        // The change commits while they wait.
        await trx.updateTable('roles').set({ permissions: after }).where('id', '=', helper).execute();
        return checks;
      });
      // Each read the roles before or after the change, never anything else.
      for (const answer of await Promise.all(answers))
        expect([P.VIEW_CHANNEL | before, P.VIEW_CHANNEL | after]).toContain(BigInt(answer.permissions));
      // And no replica kept what it read in flight past the change.
      expect(await check(me, guildId, text)).toMatchObject({ permissions: P.VIEW_CHANNEL | after });
      expect(await check(me, guildId)).toMatchObject({ permissions: P.VIEW_CHANNEL | after });
    }
  });
});
