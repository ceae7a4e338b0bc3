import { SpanKind, context, propagation, trace } from '@opentelemetry/api';
// The tracer provider (with its context manager and W3C propagator) and an in-memory exporter.
import { node as traceNode, tracing } from '@opentelemetry/sdk-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './gateway.client.js';
import { newUser, publishEvent, startStack, startTestRealtime, stopStack, type RealtimeUnderTest, type Stack } from './harness.js';

const exporter = new tracing.InMemorySpanExporter();
const provider = new traceNode.NodeTracerProvider({ spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] });

let stack: Stack;
let realtime: RealtimeUnderTest;

beforeAll(async () => {
  provider.register();
  stack = await startStack();
  realtime = await startTestRealtime(stack);
});

afterAll(async () => {
  await stopStack(stack);
  await provider.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
});

describe('tracing', () => {
  it('when an event carries a trace in its headers, then its dispatch is a consumer span of that trace', async () => {
    const user = await newUser(stack);
    const { client } = await GatewayClient.ready(realtime.url, user.token);
    const producer = trace.getTracer('test').startSpan('send events.test.TRACED', { kind: SpanKind.PRODUCER });
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), producer), carrier);
    producer.end();

    const { envelope } = await publishEvent(stack, { name: 'TRACED', users: [user.userId], headers: carrier });
    await client.next((f) => f.t === 'TRACED');

    await expect.poll(() => exporter.getFinishedSpans().some((s) => s.name === 'process events.test.TRACED')).toBe(true);
    const consumer = exporter.getFinishedSpans().find((s) => s.name === 'process events.test.TRACED')!;
    expect(consumer.kind).toBe(SpanKind.CONSUMER);
    expect(consumer.spanContext().traceId).toBe(producer.spanContext().traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
    expect(consumer.attributes).toMatchObject({ 'messaging.system': 'nats', 'messaging.message.id': envelope.id });
    client.close();
  });
});
