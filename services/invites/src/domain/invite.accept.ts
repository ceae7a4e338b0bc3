import { ApiError } from '@kith/platform';
import { errorOfCode, inviteErrors } from './invite.errors.js';
import { inviteDeleteEvent } from './invite.events.js';
import type { InviteRenderer } from './invite.renderer.js';
import { InviteFlag, InviteType, Permission, type InviteRecord } from './invite.types.js';
import type { GuildDirectory, InviteStore, SocialDirectory } from './ports.js';
import type { TargetUsersService } from './target-users.service.js';

export interface AcceptInput {
  /** The gateway session a guest invite's access is bound to. */
  sessionId?: string | undefined;
}

export interface Accepted {
  invite: InviteRecord;
  newMember: boolean;
  /** A guild member still behind the guild's member verification gate (show them its form). */
  pending: boolean;
}

/** What using an invite did: a join (or found them in already), and whether the member is pending. */
interface Outcome {
  already: boolean;
  pending: boolean;
}

/**
 * Accept Invite. A use is reserved before the join and given back when the join does not happen
 * (refused, or already a member): with max_uses k, at most k joins ever count, however many race.
 */
export class InviteAcceptor {
  constructor(
    private readonly store: InviteStore,
    private readonly guilds: GuildDirectory,
    private readonly render: InviteRenderer,
    private readonly social: Pick<SocialDirectory, 'befriend'>,
    private readonly targets: Pick<TargetUsersService, 'admits'>,
  ) {}

  async accept(userId: string, code: string, input: AcceptInput): Promise<Record<string, unknown>> {
    const { invite, newMember, pending } = await this.join(userId, code, input);
    const view = await this.render.one(invite);
    view.new_member = newMember;
    if (invite.type === InviteType.GUILD) view.show_verification_form = pending;
    return view;
  }

  async join(userId: string, code: string, input: AcceptInput): Promise<Accepted> {
    const found = await this.store.get(code);
    if (!found || !(await this.targets.admits(found, userId))) throw inviteErrors.unknownInvite();
    if (found.type === InviteType.GUILD && found.flags & InviteFlag.IS_GUEST_INVITE && !input.sessionId)
      throw inviteErrors.field('session_id', 'BASE_TYPE_REQUIRED', 'This field is required');
    if (found.type === InviteType.FRIEND && found.inviter_id === userId) throw ApiError.of('FRIEND_REQUEST_SELF');
    const invite = await this.store.reserveUse(code);
    if (!invite) throw inviteErrors.unknownInvite();
    let outcome: Outcome;
    try {
      outcome = await this.perform(invite, userId);
    } catch (err) {
      // A refusal gives the use back. An answer that never came (a timeout) may hide a join that
      // happened: the use stays counted, so max_uses is never exceeded.
      if (err instanceof ApiError) await this.store.releaseUse(code);
      else await this.store.confirmUse(code, () => []);
      throw err;
    }
    if (outcome.already) await this.store.releaseUse(code);
    if (outcome.already) return { invite, newMember: false, pending: outcome.pending };
    const audience =
      invite.type === InviteType.GUILD && invite.channel_id && invite.max_uses > 0 && invite.uses + 1 >= invite.max_uses
        ? await this.guilds.channelUsersWith(invite.channel_id, Permission.MANAGE_CHANNELS)
        : [];
    await this.store.confirmUse(code, (i) => (i.type === InviteType.GUILD ? [inviteDeleteEvent(i, audience)] : []));
    return { invite: { ...invite, uses: invite.uses + 1 }, newMember: true, pending: outcome.pending };
  }

  /** Whether the invite was used (a new member, recipient or friendship) or found them in already; throws a refusal. */
  private async perform(invite: InviteRecord, userId: string): Promise<Outcome> {
    if (invite.type === InviteType.GROUP_DM) {
      const answer = await this.guilds.addRecipient(invite.channel_id!, userId);
      if (answer.error !== 0) throw answer.error === 10003 ? inviteErrors.unknownInvite() : errorOfCode(answer.error);
      return { already: 'alreadyRecipient' in answer && answer.alreadyRecipient, pending: false };
    }
    if (invite.type === InviteType.FRIEND) {
      return { already: !(await this.social.befriend(userId, invite.inviter_id)), pending: false };
    }
    const answer = await this.guilds.addMember(invite.guild_id!, userId, {
      roleIds: invite.role_ids,
      temporary: invite.temporary,
      guest: (invite.flags & InviteFlag.IS_GUEST_INVITE) !== 0,
      channelId: invite.channel_id ?? '',
      bypassVerification: (invite.flags & InviteFlag.IS_APPLICATION_BYPASS) !== 0,
    });
    if (answer.error !== 0 || !('alreadyMember' in answer))
      throw answer.error === 10004 ? inviteErrors.unknownInvite() : errorOfCode(answer.error);
    return { already: answer.alreadyMember, pending: answer.member?.pending ?? false };
  }
}
