import { AckPolicy, DeliverPolicy, NatsError, type ConsumerMessages, type JsMsg, type NatsConnection } from 'nats';
import { ensureEventStream } from './event-stream.js';
import { EVENTS_STREAM, type EventEnvelope } from './events.js';
import type { Logger } from './logger.js';

const CONSUMER_EXISTS = 10148;
/** A failed event is offered again after this long (a store was down, say). */
const RETRY_MS = 2000;

export interface FollowedSubject {
  /** One subject (NATS 2.9 takes one filter per consumer): `events.<service>.<EVENT_NAME>`. */
  subject: string;
  /**
   * The durable consumer's name within the stack, shared by every replica of the follower: each
   * event goes to one of them.
   */
  durable: string;
}

/**
 * Follows another service's events with durable consumers that every replica of this service
 * shares: each event is handled by one replica, acknowledged once handled, offered again when the
 * handler throws, and waits in the stream while no replica runs. Consumers made now start with
 * the events published from now on.
 *
 * `stack` (the DB_PREFIX) prefixes every durable name: stacks sharing one NATS server must not
 * share consumers, or they take each other's events.
 */
export async function followEvents(
  nc: NatsConnection,
  stack: string,
  subjects: readonly FollowedSubject[],
  handle: (event: EventEnvelope) => Promise<void>,
  logger: Logger,
): Promise<{ close(): void }> {
  await ensureEventStream(nc);
  const jsm = await nc.jetstreamManager();
  const pulls: ConsumerMessages[] = [];
  for (const { subject, durable: name } of subjects) {
    const durable = `${stack}-${name}`;
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
      for await (const msg of messages) await handleOne(msg, handle, logger);
    })().catch((err: unknown) => logger.error({ err, durable }, 'event follower ended'));
  }
  return { close: () => pulls.forEach((p) => p.stop()) };
}

async function handleOne(msg: JsMsg, handle: (event: EventEnvelope) => Promise<void>, logger: Logger): Promise<void> {
  let envelope: EventEnvelope;
  try {
    envelope = JSON.parse(new TextDecoder().decode(msg.data)) as EventEnvelope;
  } catch {
    logger.warn({ subject: msg.subject }, 'undecodable event dropped');
    return msg.term();
  }
  try {
    await handle(envelope);
    msg.ack();
  } catch (err) {
    logger.warn({ err, subject: msg.subject }, 'event not handled; offered again');
    msg.nak(RETRY_MS);
  }
}
