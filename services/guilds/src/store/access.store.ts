import type { Kysely, Selectable } from 'kysely';
import { basePermissions, channelPermissions, type GuildPermissionContext, type Overwrite, type RoleBits } from '../domain/permissions.js';
import type { ChannelsTable, GuildsDatabase } from './schema.js';

export type ChannelRow = Selectable<ChannelsTable>;

export interface GuildAccess {
  guildId: string;
  ownerId: string;
  /** Null when the user is not a member. */
  ctx: GuildPermissionContext | null;
  /** The user's guild-level permissions (0 for non-members). */
  permissions: bigint;
}

export interface ChannelAccess {
  channel: ChannelRow;
  /** The guild's access for the user; undefined for DMs and group DMs. */
  guild?: GuildAccess;
  /** For private channels: whether the user is a recipient. For guild channels: a member. */
  member: boolean;
  /** The user's permissions in the channel (for a thread, its parent's overwrites). */
  permissions: bigint;
}

/** Loads what a permission decision needs and makes it (domain/permissions.ts decides). */
export class PgAccess {
  constructor(private readonly db: Kysely<GuildsDatabase>) {}

  async guild(guildId: string, userId: string, db: Kysely<GuildsDatabase> = this.db): Promise<GuildAccess | undefined> {
    const guild = await db.selectFrom('guilds').select(['id', 'owner_id']).where('id', '=', guildId).executeTakeFirst();
    if (!guild) return undefined;
    const [member, roles] = await Promise.all([
      db
        .selectFrom('members')
        .leftJoin('member_roles', (j) =>
          j.onRef('member_roles.guild_id', '=', 'members.guild_id').onRef('member_roles.user_id', '=', 'members.user_id'),
        )
        .select(['members.user_id', 'member_roles.role_id'])
        .where('members.guild_id', '=', guildId)
        .where('members.user_id', '=', userId)
        .execute(),
      db.selectFrom('roles').select(['id', 'permissions']).where('guild_id', '=', guildId).execute(),
    ]);
    if (member.length === 0) return { guildId, ownerId: guild.owner_id, ctx: null, permissions: 0n };
    const ctx: GuildPermissionContext = {
      guildId,
      ownerId: guild.owner_id,
      roles: new Map<string, RoleBits>(roles.map((r) => [r.id, { id: r.id, permissions: BigInt(r.permissions) }])),
      userId,
      memberRoleIds: member.flatMap((m) => (m.role_id ? [m.role_id] : [])),
    };
    return { guildId, ownerId: guild.owner_id, ctx, permissions: basePermissions(ctx) };
  }

  async overwrites(channelId: string, db: Kysely<GuildsDatabase> = this.db): Promise<Overwrite[]> {
    const rows = await db.selectFrom('permission_overwrites').selectAll().where('channel_id', '=', channelId).execute();
    return rows.map((o) => ({ id: o.target_id, type: o.type, allow: BigInt(o.allow), deny: BigInt(o.deny) }));
  }

  async channel(channelId: string, userId: string, db: Kysely<GuildsDatabase> = this.db): Promise<ChannelAccess | undefined> {
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
    const guild = await this.guild(channel.guild_id, userId, db);
    if (!guild?.ctx) return { channel, ...(guild ? { guild } : {}), member: false, permissions: 0n };
    // Threads take their parent channel's overwrites.
    const overwriteSource = isThread(channel.type) && channel.parent_id ? channel.parent_id : channel.id;
    const permissions = channelPermissions(guild.ctx, await this.overwrites(overwriteSource, db));
    return { channel, guild, member: true, permissions };
  }
}

export const ChannelType = {
  GUILD_TEXT: 0,
  DM: 1,
  GUILD_VOICE: 2,
  GROUP_DM: 3,
  GUILD_CATEGORY: 4,
  GUILD_ANNOUNCEMENT: 5,
  ANNOUNCEMENT_THREAD: 10,
  PUBLIC_THREAD: 11,
  PRIVATE_THREAD: 12,
  GUILD_STAGE_VOICE: 13,
  GUILD_DIRECTORY: 14,
  GUILD_FORUM: 15,
  GUILD_MEDIA: 16,
} as const;

export const isThread = (type: number): boolean =>
  type === ChannelType.ANNOUNCEMENT_THREAD || type === ChannelType.PUBLIC_THREAD || type === ChannelType.PRIVATE_THREAD;
