import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import {
  OTLP_SPAN_KIND,
  startOtlpCollector,
  tracesMentioning as tracesMentioningIn,
  type CollectedSpan,
  type OtlpCollector,
} from '@kith/platform/testing';
import { api, newUser } from './client.js';
import { SYSTEM_ENV } from './system.setup.js';
import { startSystem, type RunningSystem } from './system.js';
import { GatewayClient } from './ws-client.js';

/**
 * The whole system once more, as `npm start` starts it but with tracing on, as both shipped
 * deployments run it (the other end-to-end tests use an untraced system: tracing costs them ~40%
 * more CPU). Every process exports to a loopback OTLP receiver. One request's trace must cross every
 * hop: the edge, the service, a gRPC call, the outbox publish over NATS and realtime's consumption
 * of the event.
 */

// Its own ports (50 above the e2e system's, inside this checkout's block of 100) and databases.
let collector: OtlpCollector;
let system: RunningSystem;
beforeAll(async () => {
  collector = await startOtlpCollector();
  system = await startSystem({
    portOffset: inject('portOffset') + 50,
    dbPrefix: `${inject('dbPrefix')}_traced`,
    env: {
      ...inject('stores'),
      ...SYSTEM_ENV,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      // Spans reach the receiver within a fifth of a second of ending, so the test waits little for them.
      OTEL_BSP_SCHEDULE_DELAY: '200',
    },
  });
});
afterAll(async () => {
  await system?.stop();
  await collector?.close();
});

/** A fresh user of the traced system, with their id. */
async function person() {
  const { token } = await newUser(undefined, system.baseUrl);
  const me = await api('GET', '/users/@me', { token, base: system.baseUrl });
  expect(me.status).toBe(200);
  return { id: me.json.id as string, token };
}

/** Every span of every trace in which some span mentions `text`, as the receiver holds them now. */
const tracesMentioning = (text: string): CollectedSpan[] => tracesMentioningIn(collector.spans, text);

/** The span and its parents up to the root of the trace, nearest first. */
function lineage(span: CollectedSpan, trace: readonly CollectedSpan[]): CollectedSpan[] {
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  const chain = [span];
  for (let at = byId.get(span.parentSpanId); at; at = byId.get(at.parentSpanId)) chain.push(at);
  return chain;
}

const describeSpan = (s: CollectedSpan) => `${s.service}:${s.kind}:${s.name}`;

/** A friend request from `from` to `to`, by id. */
const befriend = (from: { token: string }, to: { id: string }) =>
  api('PUT', `/users/@me/relationships/${to.id}`, { token: from.token, body: {}, base: system.baseUrl });

it('when a user with a guild connects and sends a friend request, then READY carries the guild and one trace crosses gateway, social, gRPC, the outbox over NATS and realtime', async () => {
  const [alice, bob] = await Promise.all([person(), person()]);
  const guild = await api('POST', '/guilds', { token: alice.token, body: { name: 'traced' }, base: system.baseUrl });
  expect(guild.status).toBe(201);

  // READY's guilds come from guilds over gRPC, the call tracing once broke.
  const socket = await GatewayClient.connect(alice.token, undefined, new URL(system.baseUrl).origin);
  const readyGuilds = (socket.ready.d as unknown as { guilds: { id: string }[] }).guilds;
  expect(readyGuilds.map((g) => g.id)).toContain(guild.json.id);

  expect((await befriend(alice, bob)).status).toBe(204);
  await socket.takeThrough((d) => d.t === 'RELATIONSHIP_ADD' && (d.d as { id: string }).id === bob.id);
  socket.close();

  // Realtime's consumer span is the last hop; the receiver has the trace once it is there.
  const path = `/users/@me/relationships/${bob.id}`;
  let trace: CollectedSpan[] = [];
  await expect
    .poll(
      () => {
        trace = tracesMentioning(path);
        return trace.filter((s) => s.service === 'realtime' && s.kind === OTLP_SPAN_KIND.consumer).map((s) => s.name);
      },
      { timeout: 15_000, interval: 200 },
    )
    .toContain('process events.social.RELATIONSHIP_ADD');

  expect(new Set(trace.map((s) => s.traceId)).size).toBe(1);
  const consumer = trace.find((s) => s.service === 'realtime' && s.name === 'process events.social.RELATIONSHIP_ADD')!;
  const hops = lineage(consumer, trace);
  const root = hops.at(-1)!;
  expect(describeSpan(root)).toBe(`gateway:${OTLP_SPAN_KIND.server}:${root.name}`);
  expect(root.parentSpanId).toBe('');
  // consumer ← producer (social's outbox relay) ← … ← social's server span ← … ← the edge's server span
  expect(hops[1]).toMatchObject({ service: 'social', kind: OTLP_SPAN_KIND.producer, name: 'send events.social.RELATIONSHIP_ADD' });
  expect(hops.some((s) => s.service === 'social' && s.kind === OTLP_SPAN_KIND.server)).toBe(true);

  // Social asked another service over gRPC inside the same request: client span in social,
  // server span in the callee, parented to it.
  const grpcServer = trace.find((s) => s.service !== 'social' && s.kind === OTLP_SPAN_KIND.server && s.attributes['rpc.system'] === 'grpc');
  expect(grpcServer, trace.map(describeSpan).join('\n')).toBeDefined();
  const grpcClient = trace.find((s) => s.spanId === grpcServer!.parentSpanId)!;
  expect(grpcClient).toMatchObject({ service: 'social', kind: OTLP_SPAN_KIND.client, name: grpcServer!.name });
  expect(lineage(grpcClient, trace).some((s) => s.service === 'social' && s.kind === OTLP_SPAN_KIND.server)).toBe(true);
});

it('when the outbox relays poll with nothing to send, then none of their statements is traced (while the requests’ statements are)', async () => {
  const [alice, bob] = await Promise.all([person(), person()]);
  expect((await befriend(alice, bob)).status).toBe(204);
  // The request's own SQL is traced, statement text included: the check below could see the relay's.
  await expect
    .poll(
      () =>
        tracesMentioning(`/users/@me/relationships/${bob.id}`).some((s) =>
          /INSERT INTO "?outbox/i.test(String(s.attributes['db.statement'] ?? s.attributes['db.query.text'] ?? '')),
        ),
      {
        timeout: 15_000,
        interval: 200,
      },
    )
    .toBe(true);
  // Every relay polls its outbox four times a second with this statement, since the system started.
  expect(tracesMentioning('pg_try_advisory_xact_lock(7340418)').map(describeSpan)).toEqual([]);
});
