import { ApiError, type ServiceImpl } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { channelModule } from '../domain/channel.module.js';
import type { GuildsDeps } from '../domain/deps.js';
import { isRowId } from '../domain/input.fields.js';
import { guildCounts, renderGuild } from '../domain/guild.view.js';
import { joinGuild, removeUnlessOwner, renderGuildFor } from '../domain/membership.service.js';
import { unknownUser, userById } from '../domain/user.directory.js';
import { guildsStore } from '../store/guilds.store.js';
import { membersStore, type MemberRow } from '../store/members.store.js';
import { rolesStore } from '../store/roles.store.js';

const MAX_PAGE = 1000;

function ids(...values: string[]): void {
  for (const v of values)
    if (!isRowId(v)) throw ApiError.form({ id: { code: 'NUMBER_TYPE_COERCE', message: `Value "${v}" is not snowflake.` } });
}

const toMember = (m: MemberRow) => ({
  userId: m.user_id,
  nick: m.nick ?? '',
  roleIds: m.role_ids,
  joinedAt: m.joined_at.toISOString(),
  pending: m.pending,
  temporary: m.temporary,
  flags: m.flags,
});

/** GetGuild, GetMember, AddMember, RemoveMember, ListGuildMemberIds, ListMutualGuildIds, GetReadyState. */
export function membershipGrpc(deps: GuildsDeps): Partial<ServiceImpl<typeof GuildsService>> {
  const { db } = deps;
  return {
    async getGuild({ guildId }) {
      ids(guildId);
      const guild = await guildsStore.guild(db, guildId);
      if (!guild) return { found: false };
      const counts = guildCounts(guild);
      return {
        found: true,
        guild: {
          id: guild.id,
          name: guild.name,
          icon: guild.icon ?? '',
          ownerId: guild.owner_id,
          approximateMemberCount: counts.approximate_member_count,
          approximatePresenceCount: counts.approximate_presence_count,
          features: guild.features,
          guildJson: JSON.stringify(renderGuild(guild, await rolesStore.roles(db, guildId))),
        },
      };
    },

    async getMember({ guildId, userId }) {
      ids(guildId, userId);
      const member = await membersStore.member(db, guildId, userId);
      return member ? { found: true, member: toMember(member) } : { found: false };
    },

    async addMember({ guildId, userId, roleIds, temporary, guest }) {
      ids(guildId, userId, ...roleIds);
      const result = await joinGuild(deps, guildId, userId, { roleIds, temporary, guest });
      if (result.error !== 0) return { errorCode: result.error };
      return {
        errorCode: 0,
        alreadyMember: result.alreadyMember,
        member: toMember(result.member),
        guildJson: JSON.stringify(result.guildJson),
      };
    },

    async removeMember({ guildId, userId }) {
      ids(guildId, userId);
      return { removed: (await removeUnlessOwner(deps, guildId, userId)) === 'removed' };
    },

    async listGuildMemberIds({ guildId, after, limit }) {
      ids(guildId);
      const page = Math.min(Math.max(limit || MAX_PAGE, 1), MAX_PAGE);
      return { userIds: await membersStore.memberIds(db, guildId, after && isRowId(after) ? after : null, page) };
    },

    async listMutualGuildIds({ userId, otherUserId }) {
      ids(userId, otherUserId);
      const guilds = await guildsStore.mutualGuilds(db, userId, otherUserId);
      return { guildIds: guilds.map((g) => g.id), guilds };
    },

    /** READY: every guild as GUILD_CREATE renders it, and the private channels as GET /users/@me/channels does. */
    async getReadyState({ userId }) {
      ids(userId);
      const [guildIds, channels, user] = await Promise.all([
        guildsStore.guildIdsOf(db, userId),
        // The very list GET /users/@me/channels answers: closed DMs left out, recipients without the user.
        channelModule(deps).dms.list(userId),
        userById(deps.auth, userId),
      ]);
      const self = user ?? unknownUser(userId);
      // Concurrent renders: the pool bounds how many run at once.
      const rendered = await Promise.all(
        guildIds.map(async (guildId) => {
          const [guild, member] = await Promise.all([guildsStore.guild(db, guildId), membersStore.member(db, guildId, userId)]);
          // Left or deleted between the reads: not in READY.
          return guild && member ? renderGuildFor(db, guild, member, self) : undefined;
        }),
      );
      const guilds = rendered.filter((g) => g !== undefined);
      return {
        guildsJson: JSON.stringify(guilds),
        privateChannelsJson: JSON.stringify(channels),
        guildIds: guilds.map((g) => g.id as string),
      };
    },
  };
}
