import { ROOT_CONTEXT, SpanKind, SpanStatusCode, propagation, trace } from '@opentelemetry/api';
import type { JsMsg } from 'nats';

const tracer = trace.getTracer('kith-realtime');

/**
 * Runs the dispatch of one stream message inside a consumer span that continues the trace the
 * producer wrote into the message headers (no NATS instrumentation exists to do it for us).
 */
export function inConsumerSpan<T>(msg: JsMsg, eventId: string, work: () => Promise<T>): Promise<T> {
  const carrier: Record<string, string> = {};
  for (const [key, values] of msg.headers ?? []) if (values[0] !== undefined) carrier[key.toLowerCase()] = values[0];
  const parent = propagation.extract(ROOT_CONTEXT, carrier);
  const attributes = {
    'messaging.system': 'nats',
    'messaging.operation.type': 'process',
    'messaging.destination.name': msg.subject,
    'messaging.message.id': eventId,
  };
  return tracer.startActiveSpan(`process ${msg.subject}`, { kind: SpanKind.CONSUMER, attributes }, parent, async (span) => {
    try {
      return await work();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}
