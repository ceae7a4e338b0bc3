import type { NatsConnection } from 'nats';
import { eventSubject, followEvents, type Logger } from '@kith/platform';
import type { InviteCleanup } from '../domain/invite.cleanup.js';

/** What this service follows of guilds' events. */
const FOLLOWED = [
  { subject: eventSubject('guilds', 'GUILD_DELETE'), durable: 'invites-guild-delete' },
  { subject: eventSubject('guilds', 'CHANNEL_DELETE'), durable: 'invites-channel-delete' },
];

/** Ends the invites of guilds and channels guilds deleted (see followEvents: nothing lost while down). `stack` is the DB_PREFIX. */
export function followGuildDeletions(
  nc: NatsConnection,
  cleanup: InviteCleanup,
  logger: Logger,
  stack: string,
): Promise<{ close(): void }> {
  return followEvents(
    nc,
    stack,
    FOLLOWED,
    async (event) => void (await cleanup.handle(event as Parameters<InviteCleanup['handle']>[0])),
    logger,
  );
}
