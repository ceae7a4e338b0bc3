import { randomUUID } from 'node:crypto';
import { eventEnvelope, eventSubject, type DomainEvent, type NatsConnection } from '@kith/platform';

const SERVICE = 'realtime';

/**
 * Publishes realtime's own events straight to the stream, without an outbox: a presence or a
 * connection's end is a moment's state, not a change of record. The envelope is the platform's
 * (as the outbox builds it); JetStream acknowledges each, and its id drops a repeated publish.
 */
export async function publishDirect(nats: NatsConnection, events: readonly DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  const js = nats.jetstream();
  await Promise.all(
    events.map((event) => {
      const envelope = eventEnvelope(SERVICE, event, randomUUID());
      return js.publish(eventSubject(SERVICE, event.name), JSON.stringify(envelope), { msgID: envelope.id });
    }),
  );
}
