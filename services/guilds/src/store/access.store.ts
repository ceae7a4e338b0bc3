import { sql, type Kysely } from 'kysely';
import type { AccessReader, ChannelAccess, GuildAccess, PermissionCheck, PermissionChecker } from '../domain/ports.js';
import {
  basePermissions,
  computeChannelPermissions,
  indexOverwrites,
  isQuarantined,
  type GuildPermissionContext,
  type Overwrite,
  type OverwriteIndex,
  type RoleBits,
} from '../domain/permissions.js';
import type { GuildsDatabase } from './schema.js';

const NOT_A_MEMBER: PermissionCheck = Object.freeze({ member: false, permissions: 0n });

/** Cached data and the version (migration 0010) it was read at. */
interface Versioned<T> {
  version: string;
  value: T;
}

interface CheckKey {
  guildId: string;
  userId: string;
  channelId: string | null;
}

interface WaitingCheck extends CheckKey {
  resolve: (row: CheckRow | undefined) => void;
  reject: (err: unknown) => void;
}

/** One row of the per-check query: the member, the versions of what the caches hold, the channel. */
interface CheckRow {
  owner_id: string;
  guild_version: string;
  is_member: boolean;
  /** `communication_disabled_until` is in the future (by the database's clock, which wrote it). */
  timed_out: boolean;
  member_flags: number | null;
  /** Not past the member verification gate yet (false for a non-member). */
  pending: boolean;
  role_ids: string[];
  channel_guild_id: string | null;
  channel_type: number | null;
  /** The channel whose overwrites apply: the channel, or a thread's parent. */
  source_id: string | null;
  source_version: string | null;
}

const MAX_CACHED = 10_000;
/** Checks answered by one query at most: a burst larger than this is split. */
const MAX_BATCH = 256;
const SNOWFLAKE = /^\d{1,19}$/;
const isId = (value: string): boolean => SNOWFLAKE.test(value) && BigInt(value) <= 0x7fff_ffff_ffff_ffffn;

/**
 * Loads what a permission decision needs and makes it (domain/permissions.ts decides).
 *
 * Each guild's roles and each channel's overwrites are kept in process under the version the
 * database moves whenever they change (triggers of migration 0010), so a check is one small query
 * (the member's roles, their timeout and flags, the current versions) plus map lookups, and is
 * never stale: a version that moved is reloaded before it is used, whichever replica changed it.
 */
export class PgAccess implements PermissionChecker {
  private readonly roleCache = new Map<string, Versioned<ReadonlyMap<string, RoleBits>>>();
  private readonly overwriteCache = new Map<string, Versioned<OverwriteIndex>>();
  private batch: WaitingCheck[] = [];
  private readonly loads = new Map<string, Promise<unknown>>();

  constructor(private readonly db: Kysely<GuildsDatabase>) {}

  /** The user's permissions in a guild, or in one of its channels (threads: their parent's overwrites). */
  async check(userId: string, guildId: string, channelId?: string, db: Kysely<GuildsDatabase> = this.db): Promise<PermissionCheck> {
    if (!isId(userId) || !isId(guildId) || (channelId !== undefined && !isId(channelId))) return NOT_A_MEMBER;
    const row = await this.checkRow(guildId, userId, channelId ?? null, db);
    if (!row?.is_member) return NOT_A_MEMBER;
    if (channelId !== undefined && row.channel_guild_id !== guildId) return NOT_A_MEMBER;
    const ctx = await this.context(guildId, userId, row, db);
    if (channelId === undefined) return { member: true, permissions: basePermissions(ctx) };
    const overwrites = await this.overwriteIndex(row.source_id as string, row.source_version, guildId, db);
    return { member: true, permissions: computeChannelPermissions(ctx, overwrites, row.channel_type ?? undefined) };
  }

  async guild(guildId: string, userId: string, db: Kysely<GuildsDatabase> = this.db): Promise<GuildAccess | undefined> {
    if (!isId(guildId) || !isId(userId)) return undefined;
    const row = await this.checkRow(guildId, userId, null, db);
    if (!row) return undefined;
    if (!row.is_member) return { guildId, ownerId: row.owner_id, ctx: null, permissions: 0n };
    const ctx = await this.context(guildId, userId, row, db);
    return { guildId, ownerId: row.owner_id, ctx, permissions: basePermissions(ctx) };
  }

  /** The access reads of one database handle (a transaction's, or the pool's). */
  reader(db: Kysely<GuildsDatabase> = this.db): AccessReader {
    return {
      guild: (guildId, userId) => this.guild(guildId, userId, db),
      channel: (channelId, userId) => this.channel(channelId, userId, db),
    };
  }

  async channel(channelId: string, userId: string, db: Kysely<GuildsDatabase> = this.db): Promise<ChannelAccess | undefined> {
    if (!isId(channelId) || !isId(userId)) return undefined;
    const channel = await db.selectFrom('channels').selectAll().where('id', '=', channelId).executeTakeFirst();
    if (!channel) return undefined;
    if (channel.guild_id === null) {
      const recipient = await db
        .selectFrom('channel_recipients')
        .select('user_id')
        .where('channel_id', '=', channelId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return { channel, member: recipient !== undefined, permissions: 0n };
    }
    const guildId = channel.guild_id;
    const row = await this.checkRow(guildId, userId, channelId, db);
    if (!row) return { channel, member: false, permissions: 0n };
    if (!row.is_member)
      return { channel, guild: { guildId, ownerId: row.owner_id, ctx: null, permissions: 0n }, member: false, permissions: 0n };
    const ctx = await this.context(guildId, userId, row, db);
    const guild: GuildAccess = { guildId, ownerId: row.owner_id, ctx, permissions: basePermissions(ctx) };
    const overwrites = await this.overwriteIndex(row.source_id as string, row.source_version, guildId, db);
    return { channel, guild, member: true, permissions: computeChannelPermissions(ctx, overwrites, channel.type) };
  }

  /**
   * The one query of a check (migration 0010's permission_checks). No row: no such guild. Outside
   * a transaction, the checks that arrive together share one query: each is asked after it
   * arrived, so batching never answers from older data than a query of its own would.
   */
  private checkRow(guildId: string, userId: string, channelId: string | null, db: Kysely<GuildsDatabase>): Promise<CheckRow | undefined> {
    if (db !== this.db) return queryCheckRows(db, [{ guildId, userId, channelId }]).then((rows) => rows[0]);
    return new Promise((resolve, reject) => {
      this.batch.push({ guildId, userId, channelId, resolve, reject });
      if (this.batch.length === 1) setImmediate(() => this.flush());
      else if (this.batch.length >= MAX_BATCH) this.flush();
    });
  }

  private flush(): void {
    const batch = this.batch;
    if (batch.length === 0) return;
    this.batch = [];
    queryCheckRows(this.db, batch).then(
      (rows) => batch.forEach((waiting, i) => waiting.resolve(rows[i])),
      (err: unknown) => batch.forEach((waiting) => waiting.reject(err)),
    );
  }

  private async context(guildId: string, userId: string, row: CheckRow, db: Kysely<GuildsDatabase>): Promise<GuildPermissionContext> {
    let roles = this.roleCache.get(guildId);
    // A member's role the cached roles do not know was created after them: reload, whatever the version says.
    if (roles?.version !== row.guild_version || row.role_ids.some((id) => !roles?.value.has(id))) {
      roles = await this.once(`roles:${guildId}`, row.guild_version, db, () => this.loadRoles(guildId, db));
    }
    const quarantined = isQuarantined(row.member_flags ?? 0);
    return {
      guildId,
      ownerId: row.owner_id,
      roles: roles.value,
      userId,
      memberRoleIds: row.role_ids,
      timedOut: row.timed_out,
      quarantined,
      pending: row.pending,
    };
  }

  /**
   * One load at a time per key: checks that arrive together after a change share the load instead
   * of each taking a connection. A load already under way serves a check only when it read the
   * very version the check saw; one that started earlier may predate the change, so the check
   * loads again. (Inside a transaction, nothing is shared.)
   */
  private async once<T extends { version?: string }>(
    key: string,
    version: string | null,
    db: Kysely<GuildsDatabase>,
    load: () => Promise<T>,
  ): Promise<T> {
    if (db !== this.db) return load();
    const running = this.loads.get(key) as Promise<T> | undefined;
    if (running) {
      // A load that failed is this check's to retry.
      const loaded = await running.catch(() => undefined);
      if (loaded !== undefined && loaded.version === version) return loaded;
    }
    const promise = load();
    this.loads.set(key, promise);
    try {
      return await promise;
    } finally {
      if (this.loads.get(key) === promise) this.loads.delete(key);
    }
  }

  /** The roles and the version they are at, read by one statement (one snapshot). */
  private async loadRoles(guildId: string, db: Kysely<GuildsDatabase>): Promise<Versioned<ReadonlyMap<string, RoleBits>>> {
    const { rows } = await sql<{ version: string; id: string | null; permissions: string | null }>`
      SELECT g.permission_version AS version, r.id, r.permissions
      FROM guilds g LEFT JOIN roles r ON r.guild_id = g.id
      WHERE g.id = ${guildId}`.execute(db);
    const value = new Map<string, RoleBits>();
    for (const r of rows) if (r.id !== null && r.permissions !== null) value.set(r.id, { id: r.id, permissions: BigInt(r.permissions) });
    const entry = { version: rows[0]?.version ?? '', value };
    remember(this.roleCache, guildId, entry);
    return entry;
  }

  private async overwriteIndex(
    sourceId: string,
    version: string | null,
    guildId: string,
    db: Kysely<GuildsDatabase>,
  ): Promise<OverwriteIndex> {
    const cached = this.overwriteCache.get(sourceId);
    if (cached && cached.version === version) return cached.value;
    return this.once(`overwrites:${sourceId}`, version, db, () => this.loadOverwrites(sourceId, guildId, db));
  }

  private async loadOverwrites(
    sourceId: string,
    guildId: string,
    db: Kysely<GuildsDatabase>,
  ): Promise<OverwriteIndex & { version?: string }> {
    const { rows } = await sql<{
      version: string;
      target_id: string | null;
      type: number | null;
      allow: string | null;
      deny: string | null;
    }>`
      SELECT c.overwrite_version AS version, o.target_id, o.type, o.allow, o.deny
      FROM channels c LEFT JOIN permission_overwrites o ON o.channel_id = c.id
      WHERE c.id = ${sourceId}`.execute(db);
    const overwrites: Overwrite[] = [];
    for (const o of rows) {
      if (o.target_id === null || o.type === null || o.allow === null || o.deny === null) continue;
      overwrites.push({ id: o.target_id, type: o.type, allow: BigInt(o.allow), deny: BigInt(o.deny) });
    }
    const index = indexOverwrites(overwrites, guildId);
    // A thread whose parent is gone has no overwrites and nothing to cache.
    if (rows[0]) remember(this.overwriteCache, sourceId, { version: rows[0].version, value: index });
    return rows[0] ? { ...index, version: rows[0].version } : index;
  }
}

/** The rows of these checks, in their order (undefined: no such guild). */
async function queryCheckRows(db: Kysely<GuildsDatabase>, checks: readonly CheckKey[]): Promise<(CheckRow | undefined)[]> {
  const guildIds = checks.map((c) => c.guildId);
  const userIds = checks.map((c) => c.userId);
  const channelIds = checks.map((c) => c.channelId);
  const { rows } = await sql<CheckRow & { idx: string }>`
    SELECT * FROM permission_checks(${guildIds}::bigint[], ${userIds}::bigint[], ${channelIds}::bigint[])`.execute(db);
  const byCheck = new Array<CheckRow | undefined>(checks.length);
  for (const row of rows) byCheck[Number(row.idx) - 1] = row;
  return byCheck;
}

/** Bounded: the oldest entry goes first (a Map iterates in insertion order; a refresh moves an entry to the end). */
function remember<T>(cache: Map<string, T>, key: string, value: T): void {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value as string);
}
