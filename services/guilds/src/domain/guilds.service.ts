import { ApiError, guildCreateView } from '@kith/platform';
import { guildErrors } from './guild.errors.js';
import { actorIn, requirePermission } from './guild.guard.js';
import { renderGuild, renderUserGuild } from './guild.view.js';
import { imageHash } from './image.hash.js';
import { guildCreateFor, MAX_GUILDS_PER_USER, type MembershipService } from './membership.service.js';
import { basePermissions, Permission } from './permissions.js';
import type { GuildsStore, IdSource, UserDirectory } from './ports.js';
import { ChannelType, type GuildColumns } from './records.js';
import { userOf } from './user.directory.js';

/**
 * What `@everyone` may do in a new guild: read and talk in text and voice, react, invite, thread,
 * use apps — nothing that moderates or manages.
 */
export const DEFAULT_EVERYONE_PERMISSIONS: bigint = [
  Permission.CREATE_INSTANT_INVITE,
  Permission.ADD_REACTIONS,
  Permission.STREAM,
  Permission.VIEW_CHANNEL,
  Permission.SEND_MESSAGES,
  Permission.EMBED_LINKS,
  Permission.ATTACH_FILES,
  Permission.READ_MESSAGE_HISTORY,
  Permission.MENTION_EVERYONE,
  Permission.USE_EXTERNAL_EMOJIS,
  Permission.CONNECT,
  Permission.SPEAK,
  Permission.USE_VAD,
  Permission.CHANGE_NICKNAME,
  Permission.USE_APPLICATION_COMMANDS,
  Permission.REQUEST_TO_SPEAK,
  Permission.CREATE_PUBLIC_THREADS,
  Permission.CREATE_PRIVATE_THREADS,
  Permission.USE_EXTERNAL_STICKERS,
  Permission.SEND_MESSAGES_IN_THREADS,
  Permission.USE_EMBEDDED_ACTIVITIES,
  Permission.USE_SOUNDBOARD,
  Permission.CREATE_GUILD_EXPRESSIONS,
  Permission.CREATE_EVENTS,
  Permission.USE_EXTERNAL_SOUNDS,
  Permission.SEND_VOICE_MESSAGES,
  Permission.SEND_POLLS,
  Permission.USE_EXTERNAL_APPS,
].reduce((all, bit) => all | bit, 0n);

/** Guild settings a create or an edit may set (validated by the HTTP schemas). */
export interface GuildSettings {
  name?: string;
  icon?: string | null;
  banner?: string | null;
  splash?: string | null;
  description?: string | null;
  verification_level?: number;
  default_message_notifications?: number;
  explicit_content_filter?: number;
  afk_channel_id?: string | null;
  afk_timeout?: number;
  system_channel_id?: string | null;
  system_channel_flags?: number;
  rules_channel_id?: string | null;
  public_updates_channel_id?: string | null;
  preferred_locale?: string;
  premium_progress_bar_enabled?: boolean;
}

function columnsOf(settings: GuildSettings): GuildColumns {
  const { icon, banner, splash, ...rest } = settings;
  const columns: GuildColumns = { ...rest };
  if (icon !== undefined) columns.icon = imageHash(icon);
  if (banner !== undefined) columns.banner = imageHash(banner);
  if (splash !== undefined) columns.splash = imageHash(splash);
  return columns;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

const CHANNEL_FIELDS = ['afk_channel_id', 'system_channel_id', 'rules_channel_id', 'public_updates_channel_id'] as const;

export class GuildsService {
  constructor(
    private readonly store: GuildsStore,
    private readonly users: UserDirectory,
    private readonly ids: IdSource,
    private readonly membership: MembershipService,
  ) {}

  /** Creates a guild owned by the caller: `@everyone`, a `general` text channel, the owner as member. */
  async create(userId: string, settings: GuildSettings & { name: string }): Promise<Record<string, unknown>> {
    const user = await userOf(this.users, userId);
    if (!user) throw ApiError.unauthorized();
    const guildId = this.ids.next();
    const channelId = this.ids.next();
    return this.store.transaction(async (tx) => {
      await tx.members.lockUser(userId);
      if ((await tx.members.countGuildsOf(userId)) >= MAX_GUILDS_PER_USER) throw ApiError.of('MAX_GUILDS');
      const {
        afk_channel_id: _a,
        system_channel_id: _s,
        rules_channel_id: _r,
        public_updates_channel_id: _p,
        ...rest
      } = columnsOf(settings);
      await tx.guilds.insert({ ...rest, id: guildId, name: settings.name, owner_id: userId, system_channel_id: channelId });
      await tx.roles.insert({
        id: guildId,
        guild_id: guildId,
        name: '@everyone',
        position: 0,
        permissions: DEFAULT_EVERYONE_PERMISSIONS,
      });
      await tx.channels.insert({ id: channelId, type: ChannelType.GUILD_TEXT, guild_id: guildId, name: 'general', topic: null });
      await tx.members.insert({ guild_id: guildId, user_id: userId }, []);
      const guild = (await tx.guilds.get(guildId))!;
      const member = (await tx.members.get(guildId, userId))!;
      const created = guildCreateView(await guildCreateFor(tx, guild, member, user));
      await tx.emit([{ name: 'GUILD_CREATE', audience: { users: [userId] }, data: created }]);
      return renderGuild(guild, await tx.roles.list(guildId), []);
    });
  }

  async get(userId: string, guildId: string, withCounts: boolean): Promise<Record<string, unknown>> {
    const actor = await actorIn(this.store, guildId, userId);
    const [guild, emojis] = await Promise.all([this.store.guilds.get(guildId), this.store.emojis.list(guildId)]);
    if (!guild) throw ApiError.of('UNKNOWN_GUILD');
    return renderGuild(guild, actor.roles, emojis, withCounts);
  }

  /** MANAGE_GUILD edits settings; only the owner hands ownership to another member. */
  async update(userId: string, guildId: string, settings: GuildSettings & { owner_id?: string }): Promise<Record<string, unknown>> {
    return this.store.transaction(async (tx) => {
      // Locked before the owner is read: two transfers at once cannot both start from the old owner.
      const locked = await tx.guilds.lock(guildId);
      const actor = await actorIn(tx, guildId, userId);
      const { owner_id: newOwner, ...rest } = settings;
      if (newOwner !== undefined && newOwner !== actor.ownerId) {
        if (!actor.isOwner) throw ApiError.of('MISSING_PERMISSIONS');
        if (!(await tx.members.get(guildId, newOwner))) throw guildErrors.unknownMember();
      }
      if (Object.keys(rest).length > 0) requirePermission(actor, Permission.MANAGE_GUILD);
      for (const field of CHANNEL_FIELDS) {
        const channelId = rest[field];
        if (channelId === undefined || channelId === null) continue;
        if ((await tx.channels.get(channelId))?.guild_id !== guildId)
          throw ApiError.form({ [field]: { code: 'CHANNEL_INVALID', message: 'Unknown channel.' } });
      }
      const changes = columnsOf(rest);
      if (newOwner !== undefined) changes.owner_id = newOwner;
      const emojis = await tx.emojis.list(guildId);
      if (Object.keys(changes).length === 0) return renderGuild(locked!, actor.roles, emojis);
      const body = renderGuild(await tx.guilds.update(guildId, changes), actor.roles, emojis);
      await tx.emit([{ name: 'GUILD_UPDATE', audience: { guilds: [guildId] }, data: body }]);
      return body;
    });
  }

  /**
   * The boost count billing reports, and the premium tier it reaches (2, 7 and 14 boosts); the
   * guild's members hear GUILD_UPDATE when either changed.
   */
  async setPremiumSubscriptionCount(guildId: string, count: number): Promise<{ tier: number; changed: boolean }> {
    return this.store.transaction(async (tx) => {
      const locked = await tx.guilds.lock(guildId);
      if (!locked) throw ApiError.of('UNKNOWN_GUILD');
      const tier = premiumTierOf(count);
      if (locked.premium_subscription_count === count && locked.premium_tier === tier) return { tier, changed: false };
      const guild = await tx.guilds.update(guildId, { premium_subscription_count: count, premium_tier: tier });
      await tx.emit([
        {
          name: 'GUILD_UPDATE',
          audience: { guilds: [guildId] },
          data: renderGuild(guild, await tx.roles.list(guildId), await tx.emojis.list(guildId)),
        },
      ]);
      return { tier, changed: true };
    });
  }

  /** Owner only. Members hear GUILD_DELETE while they are still members (the rows go after). */
  async delete(userId: string, guildId: string): Promise<void> {
    await this.store.transaction(async (tx) => {
      await tx.guilds.lock(guildId);
      const actor = await actorIn(tx, guildId, userId);
      if (!actor.isOwner) throw ApiError.of('MISSING_PERMISSIONS');
      await tx.emit([{ name: 'GUILD_DELETE', audience: { guilds: [guildId] }, data: { id: guildId } }]);
      await this.membership.guests.endIn(tx, { guildId });
      await tx.guilds.delete(guildId);
    });
  }

  /** GET /users/@me/guilds: partial guilds with the caller's ownership and permissions (three queries a page). */
  async listMine(userId: string, page: { before?: string; after?: string; limit: number; withCounts: boolean }) {
    const guilds = await this.store.guilds.listOf(userId, page);
    const { roles, memberRoles } = await this.store.guilds.rolesAndMemberRoles(
      guilds.map((g) => g.id),
      userId,
    );
    const rolesByGuild = groupBy(roles, (r) => r.guild_id);
    const mineByGuild = groupBy(memberRoles, (m) => m.guild_id);
    return guilds.map((guild) => {
      const permissions = basePermissions({
        guildId: guild.id,
        ownerId: guild.owner_id,
        roles: new Map((rolesByGuild.get(guild.id) ?? []).map((r) => [r.id, { id: r.id, permissions: BigInt(r.permissions) }])),
        userId,
        memberRoleIds: (mineByGuild.get(guild.id) ?? []).map((m) => m.role_id),
      });
      return renderUserGuild(guild, userId, permissions, page.withCounts);
    });
  }

  /** Leaving: the owner cannot (they transfer or delete the guild instead). */
  async leave(userId: string, guildId: string): Promise<void> {
    const outcome = await this.membership.removeUnlessOwner(guildId, userId);
    if (outcome === 'owner') throw guildErrors.ownerCannotLeave();
    if (outcome !== 'removed') throw ApiError.of('UNKNOWN_GUILD');
  }
}

/** The platform's boost tiers: 2 boosts for tier 1, 7 for tier 2, 14 for tier 3. */
export function premiumTierOf(count: number): number {
  return count >= 14 ? 3 : count >= 7 ? 2 : count >= 2 ? 1 : 0;
}
