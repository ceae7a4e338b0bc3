import { SpanKind, context, propagation, trace } from '@opentelemetry/api';
// sdk-node is what the platform's telemetry already depends on; its namespaces give the tracer
// provider (with its AsyncLocalStorage context manager and W3C propagator) and an in-memory exporter.
import { node as traceNode, tracing } from '@opentelemetry/sdk-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueEvent } from '../../src/outbox.js';
import { SnowflakeGenerator } from '../../src/snowflake.js';
import { readStoredEvents } from '../../src/testing/index.js';
import { outboxDatabase, sharedNats, startRelay, testService, waitUntilSent } from './outbox.harness.js';

const exporter = new tracing.InMemorySpanExporter();
const provider = new traceNode.NodeTracerProvider({ spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] });

beforeAll(() => provider.register());
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
});

/** A W3C traceparent: version, trace id, parent span id, flags. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('outbox tracing', () => {
  it('when an event is written inside a trace, then its publish is a producer span of that trace, and the message carries it', async () => {
    const { db, url } = await outboxDatabase();
    const nc = await sharedNats();
    const { service, subject } = testService(nc);
    startRelay({ db, databaseUrl: url, nats: nc });

    const request = trace.getTracer('test').startSpan('POST /auth/logout');
    await context.with(trace.setSpan(context.active(), request), () =>
      db
        .transaction()
        .execute((trx) =>
          enqueueEvent(trx, service, { name: 'THING_HAPPENED', audience: { users: ['1'] }, data: {} }, new SnowflakeGenerator()),
        ),
    );
    request.end();
    await waitUntilSent(db);

    const [message] = await readStoredEvents(nc, subject);
    const [, traceId, parentSpanId] = TRACEPARENT.exec(message!.headers.traceparent ?? '') ?? [];
    const producer = exporter.getFinishedSpans().find((s) => s.name === `send ${subject}`);
    expect(producer).toBeDefined();
    expect(producer!.kind).toBe(SpanKind.PRODUCER);
    expect(producer!.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(producer!.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(producer!.attributes).toMatchObject({ 'messaging.destination.name': subject, 'messaging.message.id': message!.msgId });
    // The consumer continues from the producer span, not from the request that wrote the row.
    expect(traceId).toBe(request.spanContext().traceId);
    expect(parentSpanId).toBe(producer!.spanContext().spanId);
  });
});
