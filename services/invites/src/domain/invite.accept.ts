import { ApiError } from '@kith/platform';
import { errorOfCode, inviteErrors } from './invite.errors.js';
import type { InviteRenderer } from './invite.renderer.js';
import { InviteFlag, InviteType, type InviteRecord } from './invite.types.js';
import type { GuildDirectory, InviteStore, SocialDirectory } from './ports.js';
import type { TargetUsersService } from './target-users.service.js';
import { confirmUse } from './use-confirm.js';

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

/** What using an invite did: a join (or found them in already), whether the member is pending, whether a guest's access (no membership). */
interface Outcome {
  already: boolean;
  pending: boolean;
  guest?: boolean;
}

/** The platform's member flag for guests: guilds answers a guest's access with it. */
const MEMBER_FLAG_IS_GUEST = 1 << 4;

/** How long a reserved use waits for its accept before the reconciler settles it (many times guilds' deadline). */
export const RESERVATION_TTL_MS = 30_000;

/**
 * Accept Invite. A use of a limited invite is reserved before the join and given back when the join
 * does not happen (refused, or already a member): with max_uses k, at most k joins ever count,
 * however many race. When the join's outcome is unknown (guilds did not answer, or this process
 * dies), the reservation stays until the reconciler asks whether the join happened.
 */
export class InviteAcceptor {
  constructor(
    private readonly store: InviteStore,
    private readonly guilds: GuildDirectory,
    private readonly render: InviteRenderer,
    private readonly social: Pick<SocialDirectory, 'befriend'>,
    private readonly targets: Pick<TargetUsersService, 'admits'>,
    private readonly reservationTtlMs = RESERVATION_TTL_MS,
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
    // Unlimited invites need no reservation: every use just counts.
    let invite = found;
    let reservation: string | null = null;
    if (found.max_uses > 0) {
      const reserved = await this.store.reserveUse(code, userId, this.reservationTtlMs);
      if (!reserved) throw inviteErrors.unknownInvite();
      ({ invite, reservation } = reserved);
    }
    let outcome: Outcome;
    try {
      outcome = await this.perform(invite, userId, input.sessionId);
    } catch (err) {
      // A refusal gives the use back. An answer that never came (a timeout) may hide a join that
      // happened: the reservation stays for the reconciler, which asks once it expires.
      if (err instanceof ApiError && reservation) await this.store.releaseUse(reservation);
      throw err;
    }
    if (outcome.already) {
      if (reservation) await this.store.releaseUse(reservation);
      return { invite, newMember: false, pending: outcome.pending };
    }
    await confirmUse(this.store, this.guilds, invite, reservation);
    // A guest is not a member: the use counts, but nobody joined.
    return { invite: { ...invite, uses: invite.uses + 1 }, newMember: !outcome.guest, pending: outcome.pending };
  }

  /** Whether the invite was used (a new member, recipient or friendship) or found them in already; throws a refusal. */
  private async perform(invite: InviteRecord, userId: string, sessionId: string | undefined): Promise<Outcome> {
    if (invite.type === InviteType.GROUP_DM) {
      const answer = await this.guilds.addRecipient(invite.channel_id!, userId);
      if (answer.error !== 0) throw answer.error === 10003 ? inviteErrors.unknownInvite() : errorOfCode(answer.error);
      return { already: 'alreadyRecipient' in answer && answer.alreadyRecipient, pending: false };
    }
    if (invite.type === InviteType.FRIEND) {
      return { already: !(await this.social.befriend(userId, invite.inviter_id)), pending: false };
    }
    const guest = (invite.flags & InviteFlag.IS_GUEST_INVITE) !== 0;
    const answer = await this.guilds.addMember(invite.guild_id!, userId, {
      roleIds: invite.role_ids,
      temporary: invite.temporary,
      guest,
      channelId: invite.channel_id ?? '',
      bypassVerification: (invite.flags & InviteFlag.IS_APPLICATION_BYPASS) !== 0,
      sessionId: guest ? (sessionId ?? '') : '',
    });
    if (answer.error !== 0 || !('alreadyMember' in answer))
      throw answer.error === 10004 ? inviteErrors.unknownInvite() : errorOfCode(answer.error);
    const asGuest = !answer.alreadyMember && ((answer.member?.flags ?? 0) & MEMBER_FLAG_IS_GUEST) !== 0;
    return { already: answer.alreadyMember, pending: answer.member?.pending ?? false, guest: asGuest };
  }
}
