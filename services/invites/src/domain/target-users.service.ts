import { ApiError } from '@kith/platform';
import { inviteErrors } from './invite.errors.js';
import { has, Permission, type InviteRecord } from './invite.types.js';
import type { GuildDirectory, InviteStore } from './ports.js';
import { jobView, type TargetJob, type TargetUsersStore } from './target-users.ports.js';

/** The target users of an invite: who may see and accept it, its file and its job. */
export class TargetUsersService {
  constructor(
    private readonly invites: Pick<InviteStore, 'get'>,
    private readonly targets: TargetUsersStore,
    private readonly guilds: GuildDirectory,
    private readonly worker: { kick(): void },
  ) {}

  /** Whether `userId` may see and accept the invite: any invite without a file; the inviter and the file's users otherwise. */
  async admits(invite: InviteRecord, userId: string | null): Promise<boolean> {
    if (!invite.targeted) return true;
    if (userId === null) return false;
    return userId === invite.inviter_id || this.targets.isTarget(invite.code, userId);
  }

  /** A job was queued: the local worker looks for it now. */
  queued(): void {
    this.worker.kick();
  }

  /** Get Invite Target Users: the file's ids under the header `user_id`. */
  async csv(userId: string, code: string): Promise<string> {
    await this.readable(userId, code);
    const rows = (await this.targets.file(code)) ?? [];
    return ['user_id', ...rows].join('\n') + '\n';
  }

  async jobStatus(userId: string, code: string): Promise<Record<string, unknown>> {
    await this.readable(userId, code);
    return jobView((await this.targets.job(code))!);
  }

  /** Update Invite Target Users: a new file, processed again from the start. */
  async replace(userId: string, code: string, rows: string[]): Promise<void> {
    const invite = await this.withFile(code);
    if (invite.inviter_id !== userId && !(await this.guildPermission(userId, invite, Permission.MANAGE_GUILD)))
      throw ApiError.of('MISSING_PERMISSIONS');
    if (!(await this.targets.replaceFile(code, rows))) throw inviteErrors.unknownInvite();
    this.worker.kick();
  }

  jobs(codes: readonly string[]): Promise<Map<string, TargetJob>> {
    return this.targets.jobs(codes);
  }

  /** The inviter, or MANAGE_GUILD or VIEW_AUDIT_LOG in the invite's guild. */
  private async readable(userId: string, code: string): Promise<InviteRecord> {
    const invite = await this.withFile(code);
    if (invite.inviter_id === userId) return invite;
    const any = Permission.MANAGE_GUILD | Permission.VIEW_AUDIT_LOG;
    if (!(await this.guildPermission(userId, invite, any, true))) throw ApiError.of('MISSING_PERMISSIONS');
    return invite;
  }

  private async withFile(code: string): Promise<InviteRecord> {
    const invite = await this.invites.get(code);
    if (!invite?.targeted) throw inviteErrors.unknownInvite();
    return invite;
  }

  private async guildPermission(userId: string, invite: InviteRecord, bits: bigint, anyOf = false): Promise<boolean> {
    if (!invite.guild_id) return false;
    const { member, permissions } = await this.guilds.permissions(userId, invite.guild_id);
    if (!member) return false;
    return anyOf ? (permissions & bits) !== 0n : has(permissions, bits);
  }
}
