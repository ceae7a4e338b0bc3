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
  const d = event.data as { id?: unknown; unavailable?: unknown } | null;
  if (!d || typeof d.id !== 'string' || !d.id) return undefined;
  if (event.name === 'GUILD_CREATE') return { op: 'add', guildId: d.id };
  return d.unavailable === true ? undefined : { op: 'remove', guildId: d.id };
}

/** The audience rule: one of the named users, or a member of one of the named guilds. */
export function audienceIncludes(audience: Audience, userId: string, guilds: ReadonlySet<string>): boolean {
  if (audience.users?.includes(userId)) return true;
  return audience.guilds?.some((id) => guilds.has(id)) ?? false;
}
