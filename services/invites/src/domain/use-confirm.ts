import { inviteDeleteEvent } from './invite.events.js';
import { InviteType, Permission, type InviteRecord } from './invite.types.js';
import type { GuildDirectory, InviteStore } from './ports.js';

/**
 * Counts one use of `invite` (its reservation settled, when it has one). The use that reaches a
 * guild invite's max_uses ends it: INVITE_DELETE goes, in the same transaction, to those who can
 * manage the channel's invites (looked up only when this use may be the last). Accept and the
 * reconciler both count a use through here.
 */
export async function confirmUse(
  store: Pick<InviteStore, 'confirmUse'>,
  guilds: Pick<GuildDirectory, 'channelUsersWith'>,
  invite: InviteRecord,
  reservation: string | null,
): Promise<void> {
  const last = invite.type === InviteType.GUILD && invite.channel_id && invite.max_uses > 0 && invite.uses + 1 >= invite.max_uses;
  const audience = last ? await guilds.channelUsersWith(invite.channel_id!, Permission.MANAGE_CHANNELS) : [];
  await store.confirmUse(invite.code, reservation, (i) => (i.type === InviteType.GUILD ? [inviteDeleteEvent(i, audience)] : []));
}
