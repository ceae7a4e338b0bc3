import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Span } from '@opentelemetry/api';
import type { EventEnvelope } from '@kith/platform';
import type { JsMsg } from 'nats';

const tracer = trace.getTracer('kith-realtime');

/**
 * Runs the dispatch of a batch of stream messages with a consumer span per message, each
 * continuing the trace the producer wrote into that message's headers (no NATS instrumentation
 * exists to do it for us). The work itself runs under the first one's span: a batch is
 * dispatched at once, so what it does (the store write) belongs to all of them.
 */
export async function inConsumerSpans<T>(messages: readonly { msg: JsMsg; event: EventEnvelope }[], work: () => Promise<T>): Promise<T> {
  const spans = messages.map(({ msg, event }) => startSpan(msg, event.id));
  try {
    return await context.with(trace.setSpan(context.active(), spans[0]!), work);
  } catch (err) {
    for (const span of spans) span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    for (const span of spans) span.end();
  }
}

function startSpan(msg: JsMsg, eventId: string): Span {
  const carrier: Record<string, string> = {};
  for (const [key, values] of msg.headers ?? []) if (values[0] !== undefined) carrier[key.toLowerCase()] = values[0];
  const parent = propagation.extract(ROOT_CONTEXT, carrier);
  const attributes = {
    'messaging.system': 'nats',
    'messaging.operation.type': 'process',
    'messaging.destination.name': msg.subject,
    'messaging.message.id': eventId,
  };
  return tracer.startSpan(`process ${msg.subject}`, { kind: SpanKind.CONSUMER, attributes }, parent);
}
