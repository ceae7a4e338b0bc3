import type { Audience, EventEnvelope } from '@kith/platform';

/** A change to the guilds a session's user is in, carried by an event sent to the session. */
export interface MembershipChange {
  op: 'add' | 'remove';
  guildId: string;
}

/**
 * GUILD_CREATE sent to a user means they are in the guild now (they joined or made it);
 * GUILD_DELETE means they are not any more (they left, were removed, or the guild was deleted).
 * A GUILD_DELETE with `unavailable: true` is an outage, not a departure: the guild stays.
 */
export function membershipChange(event: EventEnvelope): MembershipChange | undefined {
  if (event.name !== 'GUILD_CREATE' && event.name !== 'GUILD_DELETE') return undefined;
  // A guest's access (one session's, not a membership) hears nothing else of the guild.
  if (event.audience.sessions?.length) return undefined;
  const d = event.data as { id?: unknown; unavailable?: unknown } | null;
  if (!d || typeof d.id !== 'string' || !d.id) return undefined;
  if (event.name === 'GUILD_CREATE') return { op: 'add', guildId: d.id };
  return d.unavailable === true ? undefined : { op: 'remove', guildId: d.id };
}

/**
 * A guest's access to a guild begun (`add`) or ended (`remove`): the GUILD_CREATE or GUILD_DELETE
 * sent to that one session. Its connection tells realtime's other half (guilds) when it goes.
 */
export function guestChange(event: EventEnvelope): MembershipChange | undefined {
  if (!event.audience.sessions?.length || (event.name !== 'GUILD_CREATE' && event.name !== 'GUILD_DELETE')) return undefined;
  const d = event.data as { id?: unknown } | null;
  if (!d || typeof d.id !== 'string' || !d.id) return undefined;
  return { op: event.name === 'GUILD_CREATE' ? 'add' : 'remove', guildId: d.id };
}

/** The audience rule: one of the named users, one of the named sessions, or a member of one of the named guilds. */
export function audienceIncludes(audience: Audience, session: { id: string; userId: string }, guilds: ReadonlySet<string>): boolean {
  const userId = session.userId;
  if (audience.users?.includes(userId)) return true;
  if (audience.sessions?.some((s) => s.id === session.id && s.user_id === userId)) return true;
  return audience.guilds?.some((id) => guilds.has(id)) ?? false;
}
