import { ApiError, guildCreateView } from '@kith/platform';
import type { Updateable } from 'kysely';
import { ChannelType } from '../store/access.store.js';
import { guildsStore } from '../store/guilds.store.js';
import { membersStore } from '../store/members.store.js';
import { rolesStore } from '../store/roles.store.js';
import type { GuildsTable } from '../store/schema.js';
import type { GuildsDeps } from './deps.js';
import { guildErrors } from './guild.errors.js';
import { actorIn, requirePermission } from './guild.guard.js';
import { imageHash } from './image.hash.js';
import { renderGuild, renderUserGuild } from './guild.view.js';
import { guildCreateFor, MAX_GUILDS_PER_USER, removeUnlessOwner } from './membership.service.js';
import { basePermissions, Permission } from './permissions.js';
import { userById } from './user.directory.js';

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

function columnsOf(settings: GuildSettings): Updateable<GuildsTable> {
  const { icon, banner, splash, ...rest } = settings;
  const columns: Updateable<GuildsTable> = { ...rest };
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
  constructor(private readonly deps: GuildsDeps) {}

  /** Creates a guild owned by the caller: `@everyone`, a `general` text channel, the owner as member. */
  async create(userId: string, settings: GuildSettings & { name: string }): Promise<Record<string, unknown>> {
    const { db, ids, outbox } = this.deps;
    const user = await userById(this.deps.auth, userId);
    if (!user) throw ApiError.unauthorized();
    const guildId = ids.next();
    const channelId = ids.next();
    return db.transaction().execute(async (trx) => {
      await membersStore.lockUserMemberships(trx, userId);
      if ((await membersStore.guildCountOf(trx, userId)) >= MAX_GUILDS_PER_USER) throw ApiError.of('MAX_GUILDS');
      const {
        afk_channel_id: _a,
        system_channel_id: _s,
        rules_channel_id: _r,
        public_updates_channel_id: _p,
        ...rest
      } = columnsOf(settings);
      await guildsStore.insertGuild(trx, { ...rest, id: guildId, name: settings.name, owner_id: userId, system_channel_id: channelId });
      await rolesStore.insertRole(trx, {
        id: guildId,
        guild_id: guildId,
        name: '@everyone',
        position: 0,
        permissions: DEFAULT_EVERYONE_PERMISSIONS,
      });
      await guildsStore.insertChannel(trx, {
        id: channelId,
        type: ChannelType.GUILD_TEXT,
        guild_id: guildId,
        name: 'general',
        topic: null,
      });
      await membersStore.insertMember(trx, { guild_id: guildId, user_id: userId }, []);
      const guild = (await guildsStore.guild(trx, guildId))!;
      const member = (await membersStore.member(trx, guildId, userId))!;
      const created = guildCreateView(await guildCreateFor(trx, guild, member, user));
      await outbox.enqueue(trx, [{ name: 'GUILD_CREATE', audience: { users: [userId] }, data: created }]);
      return renderGuild(guild, await rolesStore.roles(trx, guildId));
    });
  }

  async get(userId: string, guildId: string, withCounts: boolean): Promise<Record<string, unknown>> {
    await actorIn(this.deps.db, this.deps.access, guildId, userId);
    const guild = await guildsStore.guild(this.deps.db, guildId);
    if (!guild) throw ApiError.of('UNKNOWN_GUILD');
    return renderGuild(guild, await rolesStore.roles(this.deps.db, guildId), withCounts);
  }

  /** MANAGE_GUILD edits settings; only the owner hands ownership to another member. */
  async update(userId: string, guildId: string, settings: GuildSettings & { owner_id?: string }): Promise<Record<string, unknown>> {
    return this.deps.db.transaction().execute(async (trx) => {
      // Locked before the owner is read: two transfers at once cannot both start from the old owner.
      await guildsStore.lockGuild(trx, guildId);
      const actor = await actorIn(trx, this.deps.access, guildId, userId);
      const { owner_id: newOwner, ...rest } = settings;
      if (newOwner !== undefined && newOwner !== actor.ownerId) {
        if (!actor.isOwner) throw ApiError.of('MISSING_PERMISSIONS');
        if (!(await membersStore.member(trx, guildId, newOwner))) throw guildErrors.unknownMember();
      }
      if (Object.keys(rest).length > 0) requirePermission(actor, Permission.MANAGE_GUILD);
      for (const field of CHANNEL_FIELDS) {
        const channelId = rest[field];
        if (channelId === undefined || channelId === null) continue;
        if (!(await guildsStore.isGuildChannel(trx, guildId, channelId)))
          throw ApiError.form({ [field]: { code: 'CHANNEL_INVALID', message: 'Unknown channel.' } });
      }
      const changes = columnsOf(rest);
      if (newOwner !== undefined) changes.owner_id = newOwner;
      if (Object.keys(changes).length === 0)
        return renderGuild((await guildsStore.guild(trx, guildId))!, await rolesStore.roles(trx, guildId));
      const guild = await guildsStore.updateGuild(trx, guildId, changes);
      const body = renderGuild(guild, await rolesStore.roles(trx, guildId));
      await this.deps.outbox.enqueue(trx, [{ name: 'GUILD_UPDATE', audience: { guilds: [guildId] }, data: body }]);
      return body;
    });
  }

  /** Owner only. Members hear GUILD_DELETE while they are still members (the rows go after). */
  async delete(userId: string, guildId: string): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      await guildsStore.lockGuild(trx, guildId);
      const actor = await actorIn(trx, this.deps.access, guildId, userId);
      if (!actor.isOwner) throw ApiError.of('MISSING_PERMISSIONS');
      await this.deps.outbox.enqueue(trx, [{ name: 'GUILD_DELETE', audience: { guilds: [guildId] }, data: { id: guildId } }]);
      await guildsStore.deleteGuild(trx, guildId);
    });
  }

  /** GET /users/@me/guilds: partial guilds with the caller's ownership and permissions (three queries a page). */
  async listMine(userId: string, page: { before?: string; after?: string; limit: number; withCounts: boolean }) {
    const guilds = await guildsStore.guildsOf(this.deps.db, userId, page);
    const { roles, memberRoles } = await guildsStore.rolesAndMemberRoles(
      this.deps.db,
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
    const outcome = await removeUnlessOwner(this.deps, guildId, userId);
    if (outcome === 'owner') throw guildErrors.ownerCannotLeave();
    if (outcome !== 'removed') throw ApiError.of('UNKNOWN_GUILD');
  }
}
