import type { NatsConnection, Subscription } from 'nats';
import { eventSubject, type EventEnvelope, type Logger } from '@kith/platform';

/** What a cache of guilds' answers drops when guilds changes something. */
export interface GuildForgetting {
  /** Everything remembered of the guild's channels (their audiences) and roles. */
  forgetGuild(guildId: string): void;
  /** The channel itself (its type, thread state, tags) and its audience. */
  forgetChannel(channelId: string): void;
}

/** What one of guilds' events makes stale: its guild's audiences, and a channel or thread itself. */
export function staleOf(envelope: Partial<EventEnvelope<Record<string, unknown>>>): { guildId?: string; channelId?: string } {
  const data = envelope.data;
  const name = envelope.name ?? '';
  if (!data || typeof data !== 'object') return {};
  const out: { guildId?: string; channelId?: string } = {};
  if (typeof data.guild_id === 'string') out.guildId = data.guild_id;
  else if (name.startsWith('GUILD_') && typeof data.id === 'string') out.guildId = data.id;
  if ((name.startsWith('CHANNEL_') || name.startsWith('THREAD_')) && typeof data.id === 'string') out.channelId = data.id;
  return out;
}

/**
 * Every replica's live view of guilds' events (a plain subscription, each replica its own: this
 * is about what each process remembers), so what executions remember of a guild (who sees a
 * channel, its roles, the channel) is dropped the moment guilds changes it: a member removed, a
 * role or overwrite changed, a channel changed or deleted. A message missed while disconnected
 * costs at most the cache's TTL.
 */
export class GuildChanges {
  private subscription: Subscription | undefined;

  constructor(
    private readonly nats: NatsConnection,
    private readonly cache: GuildForgetting,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.subscription = this.nats.subscribe(eventSubject('guilds', '>'), {
      callback: (err, msg) => {
        if (err) return void this.logger.warn({ err }, 'guild changes subscription failed');
        try {
          const stale = staleOf(msg.json<EventEnvelope<Record<string, unknown>>>());
          if (stale.guildId) this.cache.forgetGuild(stale.guildId);
          if (stale.channelId) this.cache.forgetChannel(stale.channelId);
        } catch {
          // Not an event envelope: nothing to forget.
        }
      },
    });
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }
}
