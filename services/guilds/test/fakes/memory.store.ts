import { AsyncLocalStorage } from 'node:async_hooks';
import type { ContractUser, DomainEvent } from '@kith/platform';
import {
  basePermissions,
  computeChannelPermissions,
  indexOverwrites,
  isQuarantined,
  type GuildPermissionContext,
  type Overwrite,
} from '../../src/domain/permissions.js';
import type {
  AccessReader,
  ChannelRepository,
  DmRepository,
  GuildAccess,
  GuildRepository,
  GuildsStore,
  GuildsTx,
  GuildsUnit,
  IdSource,
  MemberRepository,
  PermissionCheck,
  VerificationRepository,
  EmojiRepository,
  GuestRepository,
  PermissionChecker,
  RoleRepository,
  UserDirectory,
} from '../../src/domain/ports.js';
import {
  ChannelType,
  isThread,
  overwriteSourceOf,
  type BanRecord,
  type ChannelRecord,
  type EmojiRecord,
  type GuestRecord,
  type GuildRecord,
  type JoinRequestRecord,
  type MemberRecord,
  type VerificationForm,
  type RoleRecord,
} from '../../src/domain/records.js';

/**
 * The guilds store in memory, keeping the rules the PostgreSQL schema keeps: primary keys (a second
 * insert fails, or answers false where the SQL does nothing on conflict), foreign keys (a member or
 * role of no guild, a role given that does not exist), cascades (a guild takes everything in it, a
 * role leaves its members, a channel its threads, overwrites and recipients), the member count, and
 * the orders the queries answer in. Transactions run one at a time on a copy of the data that
 * replaces it on commit, with their events; a transaction that throws leaves nothing behind.
 * Permission decisions are the domain's own (permissions.ts) over this data, as PgAccess makes them.
 */

type Member = Omit<MemberRecord, 'role_ids'>;

interface State {
  guilds: Map<string, GuildRecord>;
  roles: Map<string, RoleRecord>;
  members: Map<string, Member>;
  memberRoles: Set<string>;
  bans: Map<string, BanRecord>;
  channels: Map<string, ChannelRecord>;
  overwrites: Map<string, Overwrite[]>;
  recipients: Map<string, string[]>;
  pairs: Map<string, string>;
  closures: Set<string>;
  forms: Map<string, VerificationForm>;
  joinRequests: Map<string, JoinRequestRecord>;
  guests: Map<string, GuestRecord>;
  emojis: Map<string, EmojiRecord>;
}

const emptyState = (): State => ({
  guilds: new Map(),
  roles: new Map(),
  members: new Map(),
  memberRoles: new Set(),
  bans: new Map(),
  channels: new Map(),
  overwrites: new Map(),
  recipients: new Map(),
  pairs: new Map(),
  closures: new Set(),
  forms: new Map(),
  joinRequests: new Map(),
  guests: new Map(),
  emojis: new Map(),
});

const key = (...parts: string[]) => parts.join(':');
const byId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);
const copy = <T>(value: T): T => structuredClone(value);

class Violation extends Error {}

function fail(message: string): never {
  throw new Violation(message);
}

function guildRepository(s: () => State): GuildRepository {
  return {
    lock: async (id) => copy(s().guilds.get(id)),
    share: async (id) => copy(s().guilds.get(id)),
    get: async (id) => copy(s().guilds.get(id)),
    async insert(guild) {
      if (s().guilds.has(guild.id)) fail(`guild ${guild.id} exists`);
      s().guilds.set(guild.id, {
        icon: null,
        banner: null,
        splash: null,
        description: null,
        afk_channel_id: null,
        afk_timeout: 300,
        system_channel_id: null,
        system_channel_flags: 0,
        rules_channel_id: null,
        public_updates_channel_id: null,
        verification_level: 0,
        default_message_notifications: 0,
        explicit_content_filter: 0,
        mfa_level: 0,
        nsfw_level: 0,
        preferred_locale: 'en-US',
        premium_progress_bar_enabled: false,
        ...guild,
        premium_subscription_count: guild.premium_subscription_count ?? 0,
        premium_tier: guild.premium_tier ?? 0,
        features: [],
        member_count: 0,
        created_at: new Date(),
      });
    },
    async update(id, changes) {
      const guild = s().guilds.get(id) ?? fail(`no guild ${id}`);
      Object.assign(guild, changes);
      return copy(guild);
    },
    async setFeatures(id, features) {
      const guild = s().guilds.get(id) ?? fail(`no guild ${id}`);
      guild.features = [...features];
      return copy(guild);
    },
    async delete(id) {
      const state = s();
      state.guilds.delete(id);
      for (const role of [...state.roles.values()]) if (role.guild_id === id) deleteRole(state, role.id);
      for (const channel of [...state.channels.values()]) if (channel.guild_id === id) deleteChannelRow(state, channel.id);
      for (const [k, m] of state.members) if (m.guild_id === id) state.members.delete(k);
      for (const k of state.memberRoles) if (k.startsWith(`${id}:`)) state.memberRoles.delete(k);
      for (const [k, b] of state.bans) if (b.guild_id === id) state.bans.delete(k);
      state.forms.delete(id);
      for (const [k, r] of state.joinRequests) if (r.guild_id === id) state.joinRequests.delete(k);
      for (const [k, g] of state.guests) if (g.guild_id === id) state.guests.delete(k);
    },
    async listOf(userId, page) {
      let guilds = [...s().members.values()]
        .filter((m) => m.user_id === userId)
        .map((m) => s().guilds.get(m.guild_id)!)
        .sort((a, b) => byId(a.id, b.id));
      if (page.after) guilds = guilds.filter((g) => byId(g.id, page.after!) > 0);
      if (page.before) guilds = guilds.filter((g) => byId(g.id, page.before!) < 0);
      // With only `before`, the page just before it.
      return copy(page.before && !page.after ? guilds.slice(-page.limit) : guilds.slice(0, page.limit));
    },
    async rolesAndMemberRoles(guildIds, userId) {
      const ids = new Set(guildIds);
      const roles = [...s().roles.values()]
        .filter((r) => ids.has(r.guild_id))
        .map((r) => ({ id: r.id, guild_id: r.guild_id, permissions: r.permissions }));
      const memberRoles = [...s().memberRoles]
        .map((k) => k.split(':') as [string, string, string])
        .filter(([g, u]) => ids.has(g) && u === userId)
        .map(([guild_id, , role_id]) => ({ guild_id, role_id }));
      return { roles, memberRoles };
    },
    async idsOf(userId) {
      return [...s().members.values()]
        .filter((m) => m.user_id === userId)
        .map((m) => m.guild_id)
        .sort(byId);
    },
    async mutual(a, b) {
      const ofB = new Set([...s().members.values()].filter((m) => m.user_id === b).map((m) => m.guild_id));
      return [...s().members.values()]
        .filter((m) => m.user_id === a && ofB.has(m.guild_id))
        .map((m) => m.guild_id)
        .sort(byId)
        .map((id) => ({ id, memberCount: s().guilds.get(id)!.member_count, nick: s().members.get(key(id, b))?.nick ?? null }));
    },
  };
}

function deleteRole(state: State, roleId: string): void {
  state.roles.delete(roleId);
  for (const k of state.memberRoles) if (k.endsWith(`:${roleId}`)) state.memberRoles.delete(k);
}

function roleRepository(s: () => State): RoleRepository {
  const sorted = (roles: RoleRecord[]) => roles.sort((a, b) => a.position - b.position || byId(a.id, b.id));
  return {
    list: async (guildId) => copy(sorted([...s().roles.values()].filter((r) => r.guild_id === guildId))),
    share: async () => undefined,
    get: async (guildId, roleId) => {
      const role = s().roles.get(roleId);
      return role?.guild_id === guildId ? copy(role) : undefined;
    },
    async insert(role) {
      if (s().roles.has(role.id)) fail(`role ${role.id} exists`);
      if (!s().guilds.has(role.guild_id)) fail(`role of no guild ${role.guild_id}`);
      const row: RoleRecord = {
        color: 0,
        hoist: false,
        icon: null,
        unicode_emoji: null,
        mentionable: false,
        ...role,
        permissions: role.permissions.toString(),
        managed: false,
        flags: 0,
      };
      s().roles.set(role.id, row);
      return copy(row);
    },
    async update(roleId, changes) {
      const role = s().roles.get(roleId) ?? fail(`no role ${roleId}`);
      const { permissions, ...rest } = changes;
      Object.assign(role, rest, permissions === undefined ? {} : { permissions: permissions.toString() });
      return copy(role);
    },
    async setPositions(guildId, moves) {
      const moved = new Map<string, RoleRecord>();
      for (const { id, position } of moves) {
        const role = s().roles.get(id);
        if (role?.guild_id !== guildId) continue;
        role.position = position;
        moved.set(id, copy(role));
      }
      return moved;
    },
    delete: async (roleId) => deleteRole(s(), roleId),
    async shiftUp(guildId, from) {
      for (const role of s().roles.values()) if (role.guild_id === guildId && role.position >= from && role.id !== guildId) role.position++;
    },
  };
}

function memberRecord(state: State, m: Member): MemberRecord {
  const prefix = `${m.guild_id}:${m.user_id}:`;
  const roleIds = [...state.memberRoles].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  return copy({ ...m, role_ids: roleIds.sort(byId) });
}

function memberRepository(s: () => State): MemberRepository {
  const inGuild = (guildId: string, after: string | null) =>
    [...s().members.values()]
      .filter((m) => m.guild_id === guildId && (after === null || byId(m.user_id, after) > 0))
      .sort((a, b) => byId(a.user_id, b.user_id));
  const repo: MemberRepository = {
    lockUser: async () => undefined,
    countGuildsOf: async (userId) => [...s().members.values()].filter((m) => m.user_id === userId).length,
    async standing(guildId, userId) {
      return {
        member: await repo.get(guildId, userId),
        banned: s().bans.has(key(guildId, userId)),
        guildCount: await repo.countGuildsOf(userId),
      };
    },
    temporaryGuildsOf: async (userId) =>
      [...s().members.values()]
        .filter((m) => m.user_id === userId && m.temporary && s().guilds.get(m.guild_id)?.owner_id !== userId)
        .filter((m) => memberRecord(s(), m).role_ids.length === 0)
        .map((m) => m.guild_id)
        .sort(byId),
    async get(guildId, userId) {
      const m = s().members.get(key(guildId, userId));
      return m && memberRecord(s(), m);
    },
    list: async (guildId, after, limit) =>
      inGuild(guildId, after)
        .slice(0, limit)
        .map((m) => memberRecord(s(), m)),
    byIds: async (guildId, userIds) =>
      inGuild(guildId, null)
        .filter((m) => userIds.includes(m.user_id))
        .map((m) => memberRecord(s(), m)),
    ids: async (guildId, after, limit) =>
      inGuild(guildId, after)
        .slice(0, limit)
        .map((m) => m.user_id),
    async insert(member, roleIds) {
      const guild = s().guilds.get(member.guild_id) ?? fail(`member of no guild ${member.guild_id}`);
      if (s().members.has(key(member.guild_id, member.user_id))) fail('member exists');
      s().members.set(key(member.guild_id, member.user_id), {
        nick: null,
        avatar: null,
        joined_at: new Date(),
        premium_since: null,
        deaf: false,
        mute: false,
        pending: false,
        flags: 0,
        temporary: false,
        communication_disabled_until: null,
        ...member,
      });
      await repo.addRoles(member.guild_id, member.user_id, roleIds);
      guild.member_count++;
      return memberRecord(s(), s().members.get(key(member.guild_id, member.user_id))!);
    },
    async delete(guildId, userId) {
      if (!s().members.delete(key(guildId, userId))) return false;
      for (const k of s().memberRoles) if (k.startsWith(`${guildId}:${userId}:`)) s().memberRoles.delete(k);
      s().guilds.get(guildId)!.member_count--;
      return true;
    },
    async update(guildId, userId, changes) {
      const m = s().members.get(key(guildId, userId));
      if (!m) return;
      const { communication_disabled_until: until, ...rest } = changes;
      Object.assign(m, rest, until === undefined ? {} : { communication_disabled_until: until === null ? null : new Date(until) });
    },
    async addRoles(guildId, userId, roleIds) {
      for (const roleId of roleIds) {
        if (!s().roles.has(roleId)) fail(`no role ${roleId}`);
        if (!s().members.has(key(guildId, userId))) fail('roles of no member');
        s().memberRoles.add(key(guildId, userId, roleId));
      }
    },
    async removeRoles(guildId, userId, roleIds) {
      for (const roleId of roleIds) s().memberRoles.delete(key(guildId, userId, roleId));
    },
    ban: async (guildId, userId) => copy(s().bans.get(key(guildId, userId))),
    async bans(guildId, page) {
      return copy(
        [...s().bans.values()]
          .filter((b) => b.guild_id === guildId)
          .filter((b) => (!page.after || byId(b.user_id, page.after) > 0) && (!page.before || byId(b.user_id, page.before) < 0))
          .sort((a, b) => byId(a.user_id, b.user_id))
          .slice(0, page.limit),
      );
    },
    async insertBan(ban) {
      if (!s().guilds.has(ban.guild_id)) fail('ban of no guild');
      if (s().bans.has(key(ban.guild_id, ban.user_id))) return false;
      s().bans.set(key(ban.guild_id, ban.user_id), { ...ban, created_at: new Date() });
      return true;
    },
    deleteBan: async (guildId, userId) => s().bans.delete(key(guildId, userId)),
  };
  return repo;
}

function verificationRepository(s: () => State): VerificationRepository {
  return {
    form: async (guildId) => copy(s().forms.get(guildId)),
    async saveForm(guildId, changes) {
      if (!s().guilds.has(guildId)) fail(`form of no guild ${guildId}`);
      const form = s().forms.get(guildId) ?? { guild_id: guildId, description: null, form_fields: [], version: new Date() };
      if (changes.description !== undefined) form.description = changes.description;
      if (changes.form_fields !== undefined) form.form_fields = copy(changes.form_fields);
      form.version = new Date();
      s().forms.set(guildId, form);
      return copy(form);
    },
    async startJoinRequest(request) {
      if (!s().guilds.has(request.guild_id)) fail(`join request of no guild ${request.guild_id}`);
      const record: JoinRequestRecord = { ...request, status: 'STARTED', created_at: new Date() };
      s().joinRequests.set(key(request.guild_id, request.user_id), record);
      return copy(record);
    },
    lockJoinRequest: async (guildId, userId) => copy(s().joinRequests.get(key(guildId, userId))),
    async submitJoinRequest(id, status) {
      const record = [...s().joinRequests.values()].find((r) => r.id === id);
      if (!record) fail(`no join request ${id}`);
      record.status = status;
      return copy(record);
    },
  };
}

function emojiRepository(s: () => State): EmojiRepository {
  const sorted = (match: (e: EmojiRecord) => boolean) =>
    [...s().emojis.values()]
      .filter(match)
      .sort((a, b) => byId(a.id, b.id))
      .map(copy);
  return {
    list: async (guildId) => sorted((e) => e.guild_id === guildId),
    async listMany(guildIds) {
      const byGuild = new Map<string, EmojiRecord[]>();
      for (const e of sorted((x) => guildIds.includes(x.guild_id))) byGuild.set(e.guild_id, [...(byGuild.get(e.guild_id) ?? []), e]);
      return byGuild;
    },
    ofIntegration: async (guildId, integrationId) => sorted((e) => e.guild_id === guildId && e.integration_id === integrationId),
    async insert(emojis) {
      for (const e of emojis) {
        if (!s().guilds.has(e.guild_id)) fail(`emoji of no guild ${e.guild_id}`);
        if (s().emojis.has(e.id)) fail(`duplicate emoji ${e.id}`);
        s().emojis.set(e.id, copy(e));
      }
    },
    async update(emoji) {
      if (!s().emojis.has(emoji.id)) fail(`no emoji ${emoji.id}`);
      s().emojis.set(emoji.id, copy(emoji));
    },
    async delete(ids) {
      for (const id of ids) s().emojis.delete(id);
    },
  };
}

function guestRepository(s: () => State): GuestRepository {
  return {
    async add(guest) {
      if (!s().guilds.has(guest.guild_id)) fail(`guest of no guild ${guest.guild_id}`);
      const k = key(guest.guild_id, guest.user_id, guest.session_id);
      if (s().guests.has(k)) return false;
      s().guests.set(k, copy(guest));
      return true;
    },
    async end(where) {
      const ended: GuestRecord[] = [];
      for (const [k, g] of s().guests) {
        if (where.guildId && g.guild_id !== where.guildId) continue;
        if (where.userId && g.user_id !== where.userId) continue;
        if (where.sessionId && g.session_id !== where.sessionId) continue;
        s().guests.delete(k);
        ended.push(g);
      }
      return ended;
    },
  };
}

function deleteChannelRow(state: State, channelId: string): void {
  state.channels.delete(channelId);
  state.overwrites.delete(channelId);
  state.recipients.delete(channelId);
  for (const [k, c] of state.pairs) if (c === channelId) state.pairs.delete(k);
  for (const k of state.closures) if (k.startsWith(`${channelId}:`)) state.closures.delete(k);
}

const CHANNEL_DEFAULTS = {
  guild_id: null,
  position: 0,
  name: null,
  topic: null,
  nsfw: false,
  last_message_id: null,
  bitrate: null,
  user_limit: null,
  rate_limit_per_user: 0,
  parent_id: null,
  owner_id: null,
  icon: null,
  rtc_region: null,
  video_quality_mode: null,
  default_auto_archive_duration: null,
  default_thread_rate_limit_per_user: null,
  default_sort_order: null,
  default_forum_layout: null,
  default_reaction_emoji: null,
  available_tags: null,
  applied_tags: null,
  thread_metadata: null,
  message_count: null,
  member_count: null,
  flags: 0,
};

function channelRepository(s: () => State): ChannelRepository {
  const nonThreads = (match: (c: ChannelRecord) => boolean) => [...s().channels.values()].filter((c) => match(c) && !isThread(c.type));
  return {
    lock: async () => undefined,
    get: async (id) => copy(s().channels.get(id)),
    listInGuild: async (guildId) =>
      copy(nonThreads((c) => c.guild_id === guildId).sort((a, b) => a.position - b.position || byId(a.id, b.id))),
    countInGuild: async (guildId) => nonThreads((c) => c.guild_id === guildId).length,
    countInCategory: async (categoryId) => nonThreads((c) => c.parent_id === categoryId).length,
    nextPosition: async (guildId) =>
      Math.max(-1, ...[...s().channels.values()].filter((c) => c.guild_id === guildId).map((c) => c.position)) + 1,
    async insert(channel) {
      if (s().channels.has(channel.id)) fail(`channel ${channel.id} exists`);
      if (channel.guild_id && !s().guilds.has(channel.guild_id)) fail('channel of no guild');
      const row: ChannelRecord = { ...CHANNEL_DEFAULTS, ...copy(channel), created_at: new Date() };
      s().channels.set(row.id, row);
      return copy(row);
    },
    async update(id, patch) {
      const row = s().channels.get(id) ?? fail(`no channel ${id}`);
      Object.assign(row, copy(patch));
      return copy(row);
    },
    async delete(channel) {
      const state = s();
      for (const c of [...state.channels.values()]) {
        if (c.parent_id !== channel.id) continue;
        if (isThread(c.type)) deleteChannelRow(state, c.id);
        else c.parent_id = null;
      }
      deleteChannelRow(state, channel.id);
    },
    overwrites: async (id) => copy(s().overwrites.get(id) ?? []),
    overwritesOf: async (ids) => new Map(ids.map((id) => [id, copy(s().overwrites.get(id) ?? [])])),
    async listInGuildWithOverwrites(guildId) {
      const rows = copy(nonThreads((c) => c.guild_id === guildId).sort((a, b) => a.position - b.position || byId(a.id, b.id)));
      return { rows, overwrites: new Map(rows.map((r) => [r.id, copy(s().overwrites.get(r.id) ?? [])])) };
    },
    async replaceOverwrites(id, overwrites) {
      if (!s().channels.has(id)) fail('overwrites of no channel');
      if (new Set(overwrites.map((o) => o.id)).size !== overwrites.length) fail('overwrite target twice');
      s().overwrites.set(id, copy([...overwrites]));
    },
    async putOverwrite(id, overwrite) {
      const list = (s().overwrites.get(id) ?? []).filter((o) => o.id !== overwrite.id);
      s().overwrites.set(id, [...list, copy(overwrite)]);
    },
    async deleteOverwrite(id, targetId) {
      const list = s().overwrites.get(id) ?? [];
      s().overwrites.set(
        id,
        list.filter((o) => o.id !== targetId),
      );
      return list.some((o) => o.id === targetId);
    },
    withOverwriteFor: async (guildId, targetId) =>
      copy(
        [...s().channels.values()]
          .filter((c) => c.guild_id === guildId && (s().overwrites.get(c.id) ?? []).some((o) => o.id === targetId))
          .sort((a, b) => byId(a.id, b.id)),
      ),
    activeThreads: async (guildId) =>
      copy(
        [...s().channels.values()]
          .filter((c) => c.guild_id === guildId && isThread(c.type) && !c.thread_metadata?.archived)
          .sort((a, b) => byId(b.id, a.id)),
      ),
    archivedPublicThreads: async (parentId, before, limit) =>
      copy(
        [...s().channels.values()]
          .filter((c) => c.parent_id === parentId && (c.type === 10 || c.type === 11) && c.thread_metadata?.archived)
          .filter((c) => Date.parse(c.thread_metadata!.archive_timestamp) < Date.parse(before))
          .sort((a, b) => Date.parse(b.thread_metadata!.archive_timestamp) - Date.parse(a.thread_metadata!.archive_timestamp))
          .slice(0, limit),
      ),
    async snapshot(guildId) {
      const guild = s().guilds.get(guildId);
      if (!guild) return undefined;
      const members = [...s().members.values()].filter((m) => m.guild_id === guildId).map((m) => memberRecord(s(), m));
      return {
        guildId,
        ownerId: guild.owner_id,
        roles: new Map([...s().roles.values()].filter((r) => r.guild_id === guildId).map((r) => [r.id, BigInt(r.permissions)])),
        members: members.sort((a, b) => byId(a.user_id, b.user_id)).map((m) => ({ userId: m.user_id, roleIds: m.role_ids })),
      };
    },
  };
}

function dmRepository(s: () => State): DmRepository {
  return {
    lockPair: async () => undefined,
    findPair: async (low, high) => s().pairs.get(key(low, high)),
    async insertPair(low, high, channelId) {
      if (byId(low, high) >= 0) fail('pair out of order');
      if (s().pairs.has(key(low, high))) fail('pair exists');
      s().pairs.set(key(low, high), channelId);
    },
    async participants(channel) {
      if (channel.type === ChannelType.DM) {
        const pair = [...s().pairs].find(([, c]) => c === channel.id);
        return pair ? pair[0].split(':') : [];
      }
      return [...(s().recipients.get(channel.id) ?? [])];
    },
    async addRecipient(channelId, userId) {
      if (!s().channels.has(channelId)) fail('recipient of no channel');
      const list = s().recipients.get(channelId) ?? [];
      if (list.includes(userId)) return false;
      s().recipients.set(channelId, [...list, userId]);
      return true;
    },
    async removeRecipient(channelId, userId) {
      const list = s().recipients.get(channelId) ?? [];
      s().recipients.set(
        channelId,
        list.filter((id) => id !== userId),
      );
      return list.includes(userId);
    },
    close: async (channelId, userId) => void s().closures.add(key(channelId, userId)),
    reopen: async (channelId, userId) => s().closures.delete(key(channelId, userId)),
    listOpen: async (userId) =>
      copy(
        [...s().channels.values()]
          .filter((c) => c.guild_id === null && (s().recipients.get(c.id) ?? []).includes(userId) && !s().closures.has(key(c.id, userId)))
          .sort((a, b) => byId(b.id, a.id)),
      ),
  };
}

/** What permission_checks (migration 0010) reads, decided by permissions.ts as PgAccess does. */
function accessReader(s: () => State, now: () => number): AccessReader & PermissionChecker {
  const context = (guild: GuildRecord, userId: string): GuildPermissionContext | null => {
    const m = s().members.get(key(guild.id, userId));
    if (!m) return null;
    const roles = new Map(
      [...s().roles.values()].filter((r) => r.guild_id === guild.id).map((r) => [r.id, { id: r.id, permissions: BigInt(r.permissions) }]),
    );
    return {
      guildId: guild.id,
      ownerId: guild.owner_id,
      roles,
      userId,
      memberRoleIds: memberRecord(s(), m).role_ids,
      timedOut: m.communication_disabled_until !== null && m.communication_disabled_until.getTime() > now(),
      quarantined: isQuarantined(m.flags),
    };
  };
  const guildAccess = (guild: GuildRecord, userId: string): GuildAccess => {
    const ctx = context(guild, userId);
    return { guildId: guild.id, ownerId: guild.owner_id, ctx, permissions: ctx ? basePermissions(ctx) : 0n };
  };
  const inChannel = (ctx: GuildPermissionContext, channel: ChannelRecord) =>
    computeChannelPermissions(ctx, indexOverwrites(s().overwrites.get(overwriteSourceOf(channel)) ?? [], ctx.guildId), channel.type);
  return {
    async guild(guildId, userId) {
      const guild = s().guilds.get(guildId);
      return guild && guildAccess(guild, userId);
    },
    async channel(channelId, userId) {
      const channel = s().channels.get(channelId);
      if (!channel) return undefined;
      if (channel.guild_id === null)
        return { channel: copy(channel), member: (s().recipients.get(channelId) ?? []).includes(userId), permissions: 0n };
      const guild = guildAccess(s().guilds.get(channel.guild_id)!, userId);
      if (!guild.ctx) return { channel: copy(channel), guild, member: false, permissions: 0n };
      return { channel: copy(channel), guild, member: true, permissions: inChannel(guild.ctx, channel) };
    },
    async check(userId, guildId, channelId): Promise<PermissionCheck> {
      const guild = s().guilds.get(guildId);
      const ctx = guild && context(guild, userId);
      if (!ctx) return { member: false, permissions: 0n };
      if (channelId === undefined) return { member: true, permissions: basePermissions(ctx) };
      const channel = s().channels.get(channelId);
      if (channel?.guild_id !== guildId) return { member: false, permissions: 0n };
      return { member: true, permissions: inChannel(ctx, channel) };
    },
  };
}

export class MemoryGuildsStore implements GuildsStore {
  private state = emptyState();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly inTransaction = new AsyncLocalStorage<true>();
  /** Every event committed, in order. */
  readonly events: DomainEvent[] = [];
  /** The clock timeouts are judged by. */
  now = () => Date.now();

  readonly emojis = emojiRepository(() => this.state);
  readonly guilds = guildRepository(() => this.state);
  readonly roles = roleRepository(() => this.state);
  readonly members = memberRepository(() => this.state);
  readonly channels = channelRepository(() => this.state);
  readonly dms = dmRepository(() => this.state);
  readonly verification = verificationRepository(() => this.state);
  readonly guests = guestRepository(() => this.state);
  readonly access = accessReader(
    () => this.state,
    () => this.now(),
  );

  transaction<T>(fn: (tx: GuildsTx) => Promise<T>): Promise<T> {
    // A transaction inside a transaction would wait for itself here, as it would on a real lock.
    if (this.inTransaction.getStore()) throw new Error('a transaction was started inside a transaction');
    const run = this.queue.then(() =>
      this.inTransaction.run(true, async () => {
        const working = copy(this.state);
        const events: DomainEvent[] = [];
        const unit = unitOver(
          () => working,
          () => this.now(),
        );
        const result = await fn({ ...unit, emit: async (e) => void events.push(...copy(e)) });
        this.state = working;
        this.events.push(...events);
        return result;
      }),
    );
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The committed events of one name. */
  named(name: string): DomainEvent[] {
    return this.events.filter((e) => e.name === name);
  }
}

function unitOver(s: () => State, now: () => number): GuildsUnit {
  return {
    emojis: emojiRepository(s),
    guilds: guildRepository(s),
    roles: roleRepository(s),
    members: memberRepository(s),
    channels: channelRepository(s),
    dms: dmRepository(s),
    verification: verificationRepository(s),
    guests: guestRepository(s),
    access: accessReader(s, now),
  };
}

/** Auth's users, as GetUsers answers: unknown ids are left out. Every call is counted. */
export class MemoryUsers implements UserDirectory {
  readonly known = new Map<string, ContractUser>();
  calls = 0;

  add(user: ContractUser): ContractUser {
    this.known.set(user.id, user);
    return user;
  }

  async users(ids: readonly string[]): Promise<Map<string, ContractUser>> {
    this.calls++;
    return new Map(ids.flatMap((id) => (this.known.has(id) ? [[id, this.known.get(id)!] as const] : [])));
  }
}

/** Increasing snowflake-shaped ids. */
export class CountingIds implements IdSource {
  private next_ = 500_000_000_000_000_000n;
  next(): string {
    return String(this.next_++);
  }
}
