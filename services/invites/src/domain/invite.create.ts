import { ApiError, type ChannelData } from '@kith/platform';
import { inviteErrors } from './invite.errors.js';
import { inviteCreateEvent } from './invite.events.js';
import {
  ChannelType,
  has,
  INVITABLE_GUILD_CHANNELS,
  InviteFlag,
  InviteType,
  MAX_INVITES_PER_GUILD,
  Permission,
  TargetType,
  type InviteRecord,
  type NewInvite,
} from './invite.types.js';
import type { GuildDirectory, InviteStore, UserDirectory } from './ports.js';

/** Create Channel Invite's parameters, each optional (the route checked types and ranges). */
export interface CreateInviteInput {
  max_age?: number | undefined;
  max_uses?: number | undefined;
  temporary?: boolean | undefined;
  unique?: boolean | undefined;
  flags?: number | undefined;
  target_type?: number | undefined;
  target_user_id?: string | undefined;
  target_application_id?: string | undefined;
  role_ids?: string[] | undefined;
  /** The rows of a target users file (guild invites only): only those users may see and accept it. */
  target_users_file?: string[] | undefined;
}

export const DEFAULT_MAX_AGE = 86_400;
export const GROUP_DM_MAX_AGE = 604_800;
const CREATABLE_FLAGS = InviteFlag.IS_GUEST_INVITE | InviteFlag.IS_APPLICATION_BYPASS;
const VOICE_CHANNELS: ReadonlySet<number> = new Set([ChannelType.GUILD_VOICE, ChannelType.GUILD_STAGE_VOICE]);

/** Create Channel Invite: who may, with what settings, and the one reusable invite (`unique: false`). */
export class InviteCreator {
  constructor(
    private readonly store: InviteStore,
    private readonly guilds: GuildDirectory,
    private readonly users: UserDirectory,
    private readonly applications: { isEmbedded(applicationId: string): Promise<boolean> },
    private readonly jobs: { queued(): void } = { queued: () => undefined },
  ) {}

  /** The new (or reused) invite and the channel it is for. */
  async create(userId: string, channelId: string, input: CreateInviteInput): Promise<{ invite: InviteRecord; channel: ChannelData }> {
    const channel = await this.guilds.channel(channelId);
    if (!channel) throw ApiError.of('UNKNOWN_CHANNEL');
    const record = channel.guildId === '' ? this.groupDmInvite(userId, channel, input) : await this.guildInvite(userId, channel, input);
    if (!input.unique && record.targetFile === undefined) {
      const reusable = await this.store.findReusable(record);
      if (reusable) return { invite: reusable, channel };
    }
    const audience = record.type === InviteType.GUILD ? await this.guilds.channelUsersWith(channelId, Permission.MANAGE_CHANNELS) : [];
    const users = await this.users.users([userId, ...(record.target_user_id ? [record.target_user_id] : [])]);
    const outcome = await this.store.create(record, MAX_INVITES_PER_GUILD, (invite) =>
      invite.type === InviteType.GUILD ? [inviteCreateEvent(invite, audience, users)] : [],
    );
    if ('limit' in outcome) throw ApiError.of('MAX_INVITES');
    if ('codeTaken' in outcome) throw ApiError.of('INVALID_INVITE');
    if (record.targetFile !== undefined) this.jobs.queued();
    return { invite: outcome.invite, channel };
  }

  /** Group DMs take only max_age (1–604800); their invites are never limited in uses. */
  private groupDmInvite(userId: string, channel: ChannelData, input: CreateInviteInput): NewInvite {
    // A channel that exists but is not the caller's is 50001, as guilds answers it.
    if (!channel.recipientIds.includes(userId)) throw ApiError.of('MISSING_ACCESS');
    if (channel.type !== ChannelType.GROUP_DM) throw inviteErrors.wrongChannelType();
    const maxAge = input.max_age ?? DEFAULT_MAX_AGE;
    if (maxAge < 1) throw inviteErrors.field('max_age', 'NUMBER_TYPE_MIN', 'int value should be greater than or equal to 1.');
    if (maxAge > GROUP_DM_MAX_AGE)
      throw inviteErrors.field('max_age', 'NUMBER_TYPE_MAX', `int value should be less than or equal to ${GROUP_DM_MAX_AGE}.`);
    return {
      type: InviteType.GROUP_DM,
      guild_id: null,
      channel_id: channel.id,
      inviter_id: userId,
      max_age: maxAge,
      max_uses: 0,
      temporary: false,
      flags: 0,
      target_type: null,
      target_user_id: null,
      target_application_id: null,
      role_ids: [],
    };
  }

  private async guildInvite(userId: string, channel: ChannelData, input: CreateInviteInput): Promise<NewInvite> {
    const guildId = channel.guildId;
    const { member, permissions } = await this.guilds.permissions(userId, guildId, channel.id);
    if (!member || !has(permissions, Permission.VIEW_CHANNEL)) throw ApiError.of('MISSING_ACCESS');
    if (!INVITABLE_GUILD_CHANNELS.has(channel.type)) throw inviteErrors.wrongChannelType();
    if (!has(permissions, Permission.CREATE_INSTANT_INVITE)) throw ApiError.of('MISSING_PERMISSIONS');
    const flags = input.flags ?? 0;
    if ((flags & ~CREATABLE_FLAGS) !== 0)
      throw inviteErrors.field('flags', 'BASE_TYPE_CHOICES', 'Only IS_GUEST_INVITE and IS_APPLICATION_BYPASS may be set.');
    if (flags & InviteFlag.IS_APPLICATION_BYPASS && !has(permissions, Permission.KICK_MEMBERS)) throw ApiError.of('MISSING_PERMISSIONS');
    if (flags & InviteFlag.IS_GUEST_INVITE && !VOICE_CHANNELS.has(channel.type))
      throw inviteErrors.field('flags', 'GUEST_INVITE_INVALID_CHANNEL', 'Guest invites can only be made for voice channels.');
    const target = await this.target(guildId, channel.id, input);
    const roleIds = await this.grantableRoles(userId, guildId, permissions, input.role_ids ?? []);
    return {
      type: InviteType.GUILD,
      guild_id: guildId,
      channel_id: channel.id,
      inviter_id: userId,
      max_age: input.max_age ?? DEFAULT_MAX_AGE,
      max_uses: input.max_uses ?? 0,
      temporary: input.temporary ?? false,
      flags,
      ...target,
      role_ids: roleIds,
      ...(input.target_users_file !== undefined ? { targetFile: input.target_users_file } : {}),
    };
  }

  private async target(
    guildId: string,
    channelId: string,
    input: CreateInviteInput,
  ): Promise<Pick<NewInvite, 'target_type' | 'target_user_id' | 'target_application_id'>> {
    const none = { target_type: null, target_user_id: null, target_application_id: null };
    if (input.target_type === undefined) return none;
    if (input.target_type === TargetType.STREAM) {
      if (!input.target_user_id) throw inviteErrors.field('target_user_id', 'BASE_TYPE_REQUIRED', 'This field is required');
      // Voice states live outside this system: the streamer must at least be in the channel's audience.
      const seen = await this.guilds.permissions(input.target_user_id, guildId, channelId);
      if (!seen.member || !has(seen.permissions, Permission.VIEW_CHANNEL))
        throw inviteErrors.field('target_user_id', 'INVITE_TARGET_USER_NOT_STREAMING', 'The target user is not in this channel.');
      return { ...none, target_type: TargetType.STREAM, target_user_id: input.target_user_id };
    }
    if (input.target_type === TargetType.EMBEDDED_APPLICATION) {
      const appId = input.target_application_id;
      if (!appId) throw inviteErrors.field('target_application_id', 'BASE_TYPE_REQUIRED', 'This field is required');
      if (!(await this.applications.isEmbedded(appId)))
        throw inviteErrors.field('target_application_id', 'INVITE_TARGET_APPLICATION_NOT_EMBEDDED', 'Application is not embedded.');
      return { ...none, target_type: TargetType.EMBEDDED_APPLICATION, target_application_id: appId };
    }
    throw inviteErrors.field('target_type', 'BASE_TYPE_CHOICES', 'Value must be one of (1, 2).');
  }

  /** Roles granted on acceptance: MANAGE_ROLES, and each below the creator's highest role (the owner: any). */
  private async grantableRoles(userId: string, guildId: string, permissions: bigint, roleIds: string[]): Promise<string[]> {
    const wanted = [...new Set(roleIds)];
    if (wanted.length === 0) return [];
    if (!has(permissions, Permission.MANAGE_ROLES)) throw ApiError.of('MISSING_PERMISSIONS');
    const [guild, member] = await Promise.all([this.guilds.guild(guildId), this.guilds.member(guildId, userId)]);
    if (!guild || !member) throw ApiError.of('UNKNOWN_GUILD');
    const roles = new Map(guild.roles.map((r) => [r.id, r]));
    const highest = Math.max(0, ...member.roleIds.map((id) => roles.get(id)?.position ?? 0));
    wanted.forEach((id, i) => {
      const role = roles.get(id);
      if (!role || id === guildId || role.managed)
        throw ApiError.form({ [`role_ids.${i}`]: { code: 'UNKNOWN_ROLE', message: `Unknown role ${id}.` } });
      if (guild.ownerId !== userId && role.position >= highest) throw ApiError.of('MISSING_PERMISSIONS');
    });
    return wanted;
  }
}
