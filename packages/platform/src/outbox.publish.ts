import { ROOT_CONTEXT, SpanKind, SpanStatusCode, propagation, trace } from '@opentelemetry/api';
import { headers as natsHeaders, type JetStreamClient, type PubAck } from 'nats';
import { EVENTS_STREAM } from './events.js';
import type { PendingEvent } from './outbox.store.js';

const tracer = trace.getTracer('@kith/platform/outbox');

export interface PublishResult {
  /** Events the stream stored now. */
  stored: number;
  /** Events the stream had already stored (same `Nats-Msg-Id` within its duplicate window). */
  duplicates: number;
}

/**
 * Publishes the events to JetStream in order and waits for every ack; rejects with the first
 * failure once all have settled.
 *
 * Every publish is issued in this one synchronous loop, so all of them enter the same connection
 * (or, while the client is reconnecting, its buffer) back to back, in order. A connection that
 * dies mid-batch therefore loses a tail of the batch, never a message in the middle; the retry
 * republishes from the first unacknowledged event on, and the stream drops the copies it kept.
 */
export async function publishInOrder(js: JetStreamClient, events: PendingEvent[], timeoutMs: number): Promise<PublishResult> {
  const acks = events.map((event) => publishTraced(js, event, timeoutMs));
  const settled = await Promise.allSettled(acks);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  const duplicates = settled.filter((s) => s.status === 'fulfilled' && s.value.duplicate).length;
  return { stored: events.length - duplicates, duplicates };
}

/**
 * One publish inside a producer span that continues the trace of the transaction that wrote the
 * event; the span's own context goes into the message headers for the consumer to continue.
 */
function publishTraced(js: JetStreamClient, event: PendingEvent, timeoutMs: number): Promise<PubAck> {
  const parent = propagation.extract(ROOT_CONTEXT, event.headers);
  const span = tracer.startSpan(
    `send ${event.subject}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'send',
        'messaging.destination.name': event.subject,
        'messaging.message.id': event.id,
      },
    },
    parent,
  );
  const carrier: Record<string, string> = { ...event.headers };
  propagation.inject(trace.setSpan(parent, span), carrier);
  const headers = natsHeaders();
  for (const [key, value] of Object.entries(carrier)) headers.set(key, value);

  return js
    .publish(event.subject, event.envelope, {
      msgID: event.id,
      headers,
      timeout: timeoutMs,
      // Refuses the publish if a stream other than EVENTS captured the subject.
      expect: { streamName: EVENTS_STREAM },
    })
    .then(
      (ack) => {
        span.setAttribute('messaging.nats.stream_sequence', ack.seq);
        if (ack.duplicate) span.setAttribute('messaging.nats.duplicate', true);
        span.end();
        return ack;
      },
      (err: unknown) => {
        span.recordException(err instanceof Error ? err : String(err));
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        throw err;
      },
    );
}
