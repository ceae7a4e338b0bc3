import { userView, type ContractUser, type DomainEvent } from '@kith/platform';
import type { InviteRecord } from './invite.types.js';

/** INVITE_CREATE as the platform dispatches it (the invite with its metadata, ids not objects). */
export function inviteCreateEvent(invite: InviteRecord, audience: string[], users: ReadonlyMap<string, ContractUser>): DomainEvent {
  const data: Record<string, unknown> = {
    channel_id: invite.channel_id,
    code: invite.code,
    created_at: invite.created_at.toISOString(),
    expires_at: invite.expires_at ? invite.expires_at.toISOString() : null,
    inviter: userView(invite.inviter_id, users.get(invite.inviter_id)),
    max_age: invite.max_age,
    max_uses: invite.max_uses,
    temporary: invite.temporary,
    uses: invite.uses,
    flags: invite.flags,
    type: invite.type,
  };
  if (invite.guild_id) data.guild_id = invite.guild_id;
  if (invite.target_type !== null) data.target_type = invite.target_type;
  if (invite.target_user_id) data.target_user = userView(invite.target_user_id, users.get(invite.target_user_id));
  return { name: 'INVITE_CREATE', audience: { users: audience }, data };
}

export function inviteDeleteEvent(invite: InviteRecord, audience: string[]): DomainEvent {
  const data: Record<string, unknown> = { channel_id: invite.channel_id, code: invite.code };
  if (invite.guild_id) data.guild_id = invite.guild_id;
  return { name: 'INVITE_DELETE', audience: { users: audience }, data };
}
