import { AckPolicy, DeliverPolicy, NatsError, nanos, type ConsumerMessages, type JsMsg, type NatsConnection } from 'nats';
import { EVENTS_STREAM, ensureEventStream, eventSubject, type EventEnvelope, type Logger } from '@kith/platform';

/** What a webhook cleanup needs to do for one of guilds' events, if anything. */
export type Removal = { channelId: string } | { guildId: string } | undefined;

/**
 * A deleted guild channel (CHANNEL_DELETE with a guild), or a deleted guild: GUILD_DELETE goes to
 * the whole guild then, while a member who leaves hears one addressed to them alone.
 */
export function removalOf(envelope: Partial<EventEnvelope<{ id?: unknown; guild_id?: unknown; unavailable?: unknown }>>): Removal {
  const data = envelope.data;
  if (!data || typeof data.id !== 'string') return undefined;
  if (envelope.name === 'CHANNEL_DELETE') return typeof data.guild_id === 'string' ? { channelId: data.id } : undefined;
  if (envelope.name === 'GUILD_DELETE' && data.unavailable !== true && envelope.audience?.guilds?.includes(data.id))
    return { guildId: data.id };
  return undefined;
}

const SUBJECTS = [eventSubject('guilds', 'CHANNEL_DELETE'), eventSubject('guilds', 'GUILD_DELETE')];
const CONSUMER_NOT_FOUND = 10014;
const INACTIVE_MS = 7 * 86_400_000;

/**
 * Guilds' channel and guild deletions, read with durable JetStream consumers (one per subject:
 * NATS 2.9 takes one filter each) shared by every replica: each event is handled once, acknowledged
 * only after its webhooks are gone, and redelivered if a replica dies first.
 */
export class GuildDeletes {
  private readonly iterators: ConsumerMessages[] = [];

  constructor(
    private readonly nats: NatsConnection,
    private readonly consumerName: string,
    private readonly remove: (removal: NonNullable<Removal>) => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await ensureEventStream(this.nats);
    const jsm = await this.nats.jetstreamManager();
    for (const [i, subject] of SUBJECTS.entries()) {
      const durable = `${this.consumerName}-${i === 0 ? 'channel' : 'guild'}-deletes`;
      try {
        await jsm.consumers.info(EVENTS_STREAM, durable);
      } catch (err) {
        if (!(err instanceof NatsError && err.api_error?.err_code === CONSUMER_NOT_FOUND)) throw err;
        await jsm.consumers.add(EVENTS_STREAM, {
          durable_name: durable,
          filter_subject: subject,
          // Whatever is deleted from now on; earlier deletions found no webhooks to remove here.
          deliver_policy: DeliverPolicy.New,
          ack_policy: AckPolicy.Explicit,
          ack_wait: nanos(30_000),
          max_deliver: -1,
          // A stack that is gone for good (a test run's database) leaves no consumer behind for long.
          inactive_threshold: nanos(INACTIVE_MS),
        });
      }
      const consumer = await this.nats.jetstream().consumers.get(EVENTS_STREAM, durable);
      const messages = await consumer.consume({ max_messages: 16 });
      this.iterators.push(messages);
      void this.run(messages);
    }
  }

  stop(): void {
    // `close()` on a consume() iterator never returns (STACK-NOTES): stop it.
    for (const it of this.iterators) it.stop();
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    for await (const msg of messages) await this.handle(msg);
  }

  private async handle(msg: JsMsg): Promise<void> {
    let removal: Removal;
    try {
      removal = removalOf(JSON.parse(new TextDecoder().decode(msg.data)) as EventEnvelope<never>);
    } catch {
      this.logger.warn({ subject: msg.subject }, 'skipped a message that is not an event envelope');
      return msg.ack();
    }
    try {
      if (removal) await this.remove(removal);
      msg.ack();
    } catch (err) {
      this.logger.warn({ err, subject: msg.subject }, 'webhook cleanup failed; it will be retried');
      msg.nak(5000);
    }
  }
}
