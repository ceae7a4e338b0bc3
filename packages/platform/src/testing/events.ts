import { DeliverPolicy, type JsMsg, type NatsConnection } from 'nats';
import { EVENTS_STREAM, type EventEnvelope } from '../events.js';

/** A message as the EVENTS stream holds it. */
export interface StoredEvent<T = unknown> {
  streamSeq: number;
  subject: string;
  /** The `Nats-Msg-Id` header: the stream's key for dropping duplicates. */
  msgId: string | undefined;
  headers: Record<string, string>;
  envelope: EventEnvelope<T>;
}

/**
 * Every message the EVENTS stream holds on `subject` (oldest first), or only those stored since
 * `since`. Reads through an ordered consumer (one filter subject, as NATS 2.9 requires) that is
 * deleted afterwards; what it returns is exactly what the stream kept, duplicates included.
 */
export async function readStoredEvents<T = unknown>(nc: NatsConnection, subject: string, since?: Date): Promise<StoredEvent<T>[]> {
  const consumer = await nc.jetstream().consumers.get(EVENTS_STREAM, {
    filterSubjects: subject,
    ...(since ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: since.toISOString() } : {}),
  });
  const events: StoredEvent<T>[] = [];
  try {
    // The first message tells how many follow, so each fetch asks for exactly what is there and
    // returns at once instead of waiting out its expiry.
    const first = await consumer.next({ expires: 1_000 });
    if (!first) return events;
    events.push(toStoredEvent(first));
    let pending = first.info.pending;
    while (pending > 0) {
      const batch = await consumer.fetch({ max_messages: Math.min(pending, 1_000), expires: 5_000 });
      for await (const msg of batch) {
        events.push(toStoredEvent(msg));
        pending = msg.info.pending;
      }
    }
    return events;
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}

function toStoredEvent<T>(msg: JsMsg): StoredEvent<T> {
  const headers: Record<string, string> = {};
  for (const [key, values] of msg.headers ?? []) headers[key] = values[0] ?? '';
  return { streamSeq: msg.seq, subject: msg.subject, msgId: msg.headers?.get('Nats-Msg-Id'), headers, envelope: msg.json() };
}
