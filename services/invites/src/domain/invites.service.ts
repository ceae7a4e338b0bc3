import { ApiError } from '@kith/platform';
import { inviteErrors } from './invite.errors.js';
import { inviteDeleteEvent } from './invite.events.js';
import type { InviteRenderer } from './invite.renderer.js';
import { has, InviteFlag, InviteType, Permission, TargetType, type InviteRecord } from './invite.types.js';
import type { GuildDirectory, InviteStore, SocialDirectory } from './ports.js';
import { jobView } from './target-users.ports.js';
import type { TargetUsersService } from './target-users.service.js';

export interface GetInviteOptions {
  withCounts: boolean;
  withPermissions: boolean;
}

/** Invites of these target types are never listed nor deleted by the invite endpoints. */
const listable = (invite: InviteRecord): boolean =>
  invite.target_type === null || invite.target_type === TargetType.STREAM || invite.target_type === TargetType.EMBEDDED_APPLICATION;

/** Reading, listing and deleting invites. */
export class InvitesService {
  constructor(
    private readonly store: InviteStore,
    private readonly guilds: GuildDirectory,
    private readonly render: InviteRenderer,
    private readonly social: Pick<SocialDirectory, 'blocks'>,
    private readonly targets: Pick<TargetUsersService, 'admits' | 'jobs'>,
  ) {}

  async live(code: string): Promise<InviteRecord> {
    const invite = await this.store.get(code);
    if (!invite) throw inviteErrors.unknownInvite();
    return invite;
  }

  /**
   * Get Invite: anyone may read a live invite, signed in or not (`viewerId` null), but a friend
   * invite is hidden from those its inviter blocks. The first read marks it viewed.
   */
  async get(code: string, options: GetInviteOptions, viewerId: string | null = null): Promise<Record<string, unknown>> {
    const invite = await this.live(code);
    if (invite.type === InviteType.FRIEND && viewerId !== null && viewerId !== invite.inviter_id) {
      if (await this.social.blocks(invite.inviter_id, viewerId)) throw inviteErrors.unknownInvite();
    }
    if (!(await this.targets.admits(invite, viewerId))) throw inviteErrors.unknownInvite();
    if (!(invite.flags & InviteFlag.IS_VIEWED)) {
      await this.store.markViewed(code);
      invite.flags |= InviteFlag.IS_VIEWED;
    }
    const view = await this.render.one(invite, { counts: options.withCounts });
    if (options.withPermissions && invite.type === InviteType.GUILD && invite.guild_id) {
      const guild = await this.guilds.guild(invite.guild_id);
      const everyone = guild?.roles.find((r) => r.id === invite.guild_id);
      view.is_nickname_changeable = everyone ? has(BigInt(everyone.permissions), Permission.CHANGE_NICKNAME) : false;
    }
    return view;
  }

  /** Delete Invite: MANAGE_CHANNELS on its channel or MANAGE_GUILD; a group DM's or friend invite's own inviter. */
  async delete(userId: string, code: string): Promise<Record<string, unknown>> {
    const invite = await this.live(code);
    if (!listable(invite)) throw ApiError.of('MISSING_PERMISSIONS');
    await this.assertMayDelete(userId, invite);
    const audience =
      invite.type === InviteType.GUILD && invite.channel_id
        ? await this.guilds.channelUsersWith(invite.channel_id, Permission.MANAGE_CHANNELS)
        : [];
    const deleted = await this.store.delete(code, (i) => (i.type === InviteType.GUILD ? [inviteDeleteEvent(i, audience)] : []));
    if (!deleted) throw inviteErrors.unknownInvite();
    return this.render.one(deleted, { metadata: true });
  }

  private async assertMayDelete(userId: string, invite: InviteRecord): Promise<void> {
    if (invite.type === InviteType.FRIEND) {
      if (invite.inviter_id !== userId) throw ApiError.of('MISSING_PERMISSIONS');
      return;
    }
    if (invite.type === InviteType.GROUP_DM) {
      if (invite.inviter_id === userId) return;
      const channel = invite.channel_id ? await this.guilds.channel(invite.channel_id) : undefined;
      if (channel?.ownerId !== userId) throw ApiError.of('MISSING_PERMISSIONS');
      return;
    }
    const guildId = invite.guild_id!;
    const inChannel = await this.guilds.permissions(userId, guildId, invite.channel_id ?? undefined);
    if (inChannel.member && has(inChannel.permissions, Permission.MANAGE_CHANNELS)) return;
    const inGuild = await this.guilds.permissions(userId, guildId);
    if (!inGuild.member || !has(inGuild.permissions, Permission.MANAGE_GUILD)) throw ApiError.of('MISSING_PERMISSIONS');
  }

  /** Get Guild Invites: MANAGE_GUILD or VIEW_AUDIT_LOG; the metadata only with MANAGE_GUILD. */
  async listGuild(userId: string, guildId: string): Promise<Record<string, unknown>[]> {
    const { member, permissions } = await this.guilds.permissions(userId, guildId);
    if (!member) throw ApiError.of((await this.guilds.guild(guildId)) ? 'MISSING_ACCESS' : 'UNKNOWN_GUILD');
    const manage = has(permissions, Permission.MANAGE_GUILD);
    if (!manage && !has(permissions, Permission.VIEW_AUDIT_LOG)) throw ApiError.of('MISSING_PERMISSIONS');
    const invites = (await this.store.listByGuild(guildId)).filter(listable);
    const [views, jobs] = await Promise.all([
      this.render.many(invites, { metadata: manage }),
      this.targets.jobs(invites.filter((i) => i.targeted).map((i) => i.code)),
    ]);
    views.forEach((view, i) => {
      const job = jobs.get(invites[i]!.code);
      if (job) view.target_users_job_status = jobView(job);
    });
    return views;
  }

  /** Get Channel Invites: MANAGE_CHANNELS in a guild channel; a group DM's recipients. */
  async listChannel(userId: string, channelId: string): Promise<Record<string, unknown>[]> {
    const channel = await this.guilds.channel(channelId);
    if (!channel) throw ApiError.of('UNKNOWN_CHANNEL');
    if (channel.guildId === '') {
      if (!channel.recipientIds.includes(userId)) throw ApiError.of('MISSING_ACCESS');
      if (channel.type !== 3) throw inviteErrors.wrongChannelType();
    } else {
      const { member, permissions } = await this.guilds.permissions(userId, channel.guildId, channelId);
      if (!member || !has(permissions, Permission.VIEW_CHANNEL)) throw ApiError.of('MISSING_ACCESS');
      if (!has(permissions, Permission.MANAGE_CHANNELS)) throw ApiError.of('MISSING_PERMISSIONS');
    }
    const invites = (await this.store.listByChannel(channelId)).filter(listable);
    return this.render.many(invites, { metadata: true }, { channel });
  }
}
