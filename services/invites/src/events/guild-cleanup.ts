import { AckPolicy, DeliverPolicy, NatsError, type ConsumerMessages, type JsMsg, type NatsConnection } from 'nats';
import { ensureEventStream, eventSubject, EVENTS_STREAM, type EventEnvelope, type Logger } from '@kith/platform';
import type { InviteCleanup } from '../domain/invite.cleanup.js';

const CONSUMER_EXISTS = 10148;
/** A failed event is offered again after this long (the database was down, say). */
const RETRY_NS = 2_000_000_000;

/** What this service follows of guilds' events, each subject with its own durable consumer (NATS 2.9: one filter each). */
const FOLLOWED = [
  { subject: eventSubject('guilds', 'GUILD_DELETE'), durable: 'invites-guild-delete' },
  { subject: eventSubject('guilds', 'CHANNEL_DELETE'), durable: 'invites-channel-delete' },
];

/**
 * Ends the invites of guilds and channels guilds deleted. Durable consumers shared by every
 * replica (each event handled by one of them), acknowledged once handled: an event that arrives
 * while this service is down is handled when it is back; one that fails is offered again.
 */
export async function followGuildDeletions(nc: NatsConnection, cleanup: InviteCleanup, logger: Logger): Promise<{ close(): void }> {
  await ensureEventStream(nc);
  const jsm = await nc.jetstreamManager();
  const pulls: ConsumerMessages[] = [];
  for (const { subject, durable } of FOLLOWED) {
    try {
      await jsm.consumers.add(EVENTS_STREAM, {
        durable_name: durable,
        filter_subject: subject,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.New,
      });
    } catch (err) {
      if (!(err instanceof NatsError && err.api_error?.err_code === CONSUMER_EXISTS)) throw err;
    }
    const consumer = await nc.jetstream().consumers.get(EVENTS_STREAM, durable);
    const messages = await consumer.consume({ max_messages: 64 });
    pulls.push(messages);
    void (async () => {
      for await (const msg of messages) await handle(msg, cleanup, logger);
    })().catch((err: unknown) => logger.error({ err, durable }, 'guild event consumer ended'));
  }
  return { close: () => pulls.forEach((p) => p.stop()) };
}

async function handle(msg: JsMsg, cleanup: InviteCleanup, logger: Logger): Promise<void> {
  let envelope: EventEnvelope<{ id?: unknown; guild_id?: unknown }>;
  try {
    envelope = JSON.parse(new TextDecoder().decode(msg.data)) as EventEnvelope<{ id?: unknown; guild_id?: unknown }>;
  } catch {
    logger.warn({ subject: msg.subject }, 'undecodable guild event dropped');
    return msg.term();
  }
  try {
    await cleanup.handle(envelope);
    msg.ack();
  } catch (err) {
    logger.warn({ err, subject: msg.subject }, 'guild event not handled; offered again');
    msg.nak(RETRY_NS / 1_000_000);
  }
}
