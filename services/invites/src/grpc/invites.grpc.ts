import { ApiError, isSnowflake, type ServiceImpl } from '@kith/platform';
import type { InvitesService } from '@kith/proto/invites/v1/invites';
import { isInviteCode } from '../domain/invite.codes.js';
import type { InviteAcceptor } from '../domain/invite.accept.js';
import type { InviteStore } from '../domain/ports.js';

/** AcceptInvite (registration with an invite) and LookupInvite. Refusals travel as codes. */
export function invitesGrpc(deps: { acceptor: InviteAcceptor; store: InviteStore }): ServiceImpl<typeof InvitesService> {
  return {
    async acceptInvite({ code, userId }) {
      if (!isSnowflake(userId)) throw ApiError.form({ user_id: { code: 'NUMBER_TYPE_COERCE', message: 'Value is not snowflake.' } });
      if (!isInviteCode(code)) return { errorCode: 10006 };
      try {
        const { invite, newMember, pending } = await deps.acceptor.join(userId, code, {});
        return {
          errorCode: 0,
          type: invite.type,
          guildId: invite.guild_id ?? '',
          channelId: invite.channel_id ?? '',
          newMember,
          showVerificationForm: pending,
        };
      } catch (err) {
        if (err instanceof ApiError) return { errorCode: err.body.code };
        throw err;
      }
    },

    async lookupInvite({ code }) {
      const invite = isInviteCode(code) ? await deps.store.get(code) : undefined;
      if (!invite) return { found: false };
      return {
        found: true,
        type: invite.type,
        guildId: invite.guild_id ?? '',
        channelId: invite.channel_id ?? '',
        inviterId: invite.inviter_id,
      };
    },
  };
}
