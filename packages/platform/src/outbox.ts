import { context, propagation } from '@opentelemetry/api';
import { CompiledQuery, sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { eventSubject, type DomainEvent, type EventEnvelope } from './events.js';
import type { SnowflakeGenerator } from './snowflake.js';
import { inlineParameters } from './sql.inline.js';

/**
 * The channel the relay LISTENs on. A NOTIFY sent inside the producing transaction is delivered
 * only at commit (and not at all on rollback), so the relay wakes exactly when there is work.
 */
export const OUTBOX_CHANNEL = 'kith_outbox';

/** Service and event names are subject tokens: a dot, space or wildcard would change the subject. */
const SUBJECT_TOKEN = /^[A-Za-z0-9_-]+$/;

/**
 * Writes events into the outbox inside the caller's transaction: they are published if and only if
 * it commits. Call it after the writes the events describe, so that a concurrent transaction
 * waiting on the same rows writes its events later in the outbox's order. The active trace context
 * is stored with each event so publishing continues the trace.
 */
export async function enqueueEvents<DB>(
  trx: Transaction<DB>,
  service: string,
  events: DomainEvent[],
  ids: SnowflakeGenerator,
): Promise<EventEnvelope[]> {
  if (events.length === 0) return [];
  const { statement, envelopes } = outboxStatement(service, events, ids);
  await statement.execute(trx);
  return envelopes;
}

/**
 * The one statement `enqueueEvents` runs (the rows and the wake-up call together), built but not
 * sent: for a store that sends it in one message with its own writes and COMMIT. `events` must not
 * be empty.
 */
export function outboxStatement(
  service: string,
  events: DomainEvent[],
  ids: SnowflakeGenerator,
): { statement: RawBuilder<unknown>; envelopes: EventEnvelope[] } {
  const { envelopes, headers } = outboxEnvelopes(service, events, ids);
  const rows = envelopes.map((e) => sql`(${e.id}, ${eventSubject(service, e.name)}, ${JSON.stringify(e)}::jsonb, ${headers}::jsonb)`);
  const statement = sql`WITH inserted AS (INSERT INTO outbox (id, subject, envelope, headers) VALUES ${sql.join(rows)} RETURNING 1)
    SELECT pg_notify(${OUTBOX_CHANNEL}, '') FROM (SELECT 1 FROM inserted LIMIT 1) AS one`;
  return { statement, envelopes };
}

/**
 * The outbox INSERT alone (`RETURNING 1`), writing its rows only when `condition` holds: for a
 * store that writes a change in one statement of data-modifying CTEs guarded by one of them (the
 * events then commit exactly when the change does). The statement must wake the relay itself:
 * `SELECT pg_notify(OUTBOX_CHANNEL, '') FROM (SELECT 1 FROM <this CTE> LIMIT 1) AS one`.
 * `events` must not be empty.
 */
export function outboxInsertWhen(
  service: string,
  events: DomainEvent[],
  ids: SnowflakeGenerator,
  condition: RawBuilder<unknown>,
): { insert: RawBuilder<unknown>; envelopes: EventEnvelope[] } {
  const { envelopes, headers } = outboxEnvelopes(service, events, ids);
  // VALUES in a subquery types its columns itself: the casts keep them the outbox's.
  const rows = envelopes.map(
    (e) => sql`(${e.id}::bigint, ${eventSubject(service, e.name)}::text, ${JSON.stringify(e)}::jsonb, ${headers}::jsonb)`,
  );
  const insert = sql`INSERT INTO outbox (id, subject, envelope, headers)
    SELECT v.id, v.subject, v.envelope, v.headers FROM (VALUES ${sql.join(rows)}) AS v (id, subject, envelope, headers)
    WHERE ${condition} ORDER BY v.id RETURNING 1`;
  return { insert, envelopes };
}

/** Writes one event into the outbox inside the caller's transaction (see `enqueueEvents`). */
export async function enqueueEvent<DB>(
  trx: Transaction<DB>,
  service: string,
  event: DomainEvent,
  ids: SnowflakeGenerator,
): Promise<EventEnvelope> {
  const [envelope] = await enqueueEvents(trx, service, [event], ids);
  return envelope!;
}

/** A service's outbox: its name and id generator bound once, for its stores to enqueue with. */
export class Outbox {
  constructor(
    readonly service: string,
    private readonly ids: SnowflakeGenerator,
  ) {
    if (!SUBJECT_TOKEN.test(service)) throw new Error(`bad service name for event subjects: ${service}`);
  }

  enqueue<DB>(trx: Transaction<DB>, events: DomainEvent[]): Promise<EventEnvelope[]> {
    return enqueueEvents(trx, this.service, events, this.ids);
  }

  /**
   * Ends the transaction the caller opened on `conn` (BEGIN on a single connection) with these
   * events written: the outbox's statement and COMMIT travel in one simple-protocol message when
   * every value can be written in as a literal (one round trip instead of two), else one after the
   * other. On failure the transaction is left for the caller to roll back.
   */
  async commitWith<DB>(conn: Kysely<DB>, events: DomainEvent[]): Promise<void> {
    if (events.length === 0) {
      await sql.raw('COMMIT').execute(conn);
      return;
    }
    const compiled = this.statement(events).compile(conn);
    const text = inlineParameters(compiled);
    if (text !== null) {
      await conn.executeQuery(CompiledQuery.raw(`${text};\nCOMMIT`));
      return;
    }
    await conn.executeQuery(compiled);
    await sql.raw('COMMIT').execute(conn);
  }

  /** The outbox INSERT for a CTE, writing only when `condition` holds (see `outboxInsertWhen`). */
  insertWhen(events: DomainEvent[], condition: RawBuilder<unknown>): RawBuilder<unknown> {
    return outboxInsertWhen(this.service, events, this.ids, condition).insert;
  }

  /** The statement `enqueue` would run, not sent (see `outboxStatement`). */
  statement(events: DomainEvent[]): RawBuilder<unknown> {
    return outboxStatement(this.service, events, this.ids).statement;
  }
}

/** The outbox rows' envelopes and the active trace context (as JSON) stored with each of them. */
function outboxEnvelopes(service: string, events: DomainEvent[], ids: SnowflakeGenerator): { envelopes: EventEnvelope[]; headers: string } {
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  return { envelopes: events.map((event) => toEnvelope(service, event, ids)), headers: JSON.stringify(headers) };
}

function toEnvelope(service: string, event: DomainEvent, ids: SnowflakeGenerator): EventEnvelope {
  const now = Date.now();
  return eventEnvelope(service, event, ids.next(now), now);
}

/**
 * The one way an event becomes the envelope the stream carries: the outbox's, and that of an
 * event a service publishes straight to the stream (realtime's presences and announcements).
 * `id` is also the message id the stream drops duplicates by.
 */
export function eventEnvelope(service: string, event: DomainEvent, id: string, now = Date.now()): EventEnvelope {
  if (!SUBJECT_TOKEN.test(service)) throw new Error(`bad service name for event subjects: ${service}`);
  if (!SUBJECT_TOKEN.test(event.name)) throw new Error(`bad event name for event subjects: ${event.name}`);
  const envelope: EventEnvelope = {
    id,
    service,
    name: event.name,
    occurred_at: new Date(now).toISOString(),
    audience: event.audience,
    data: event.data,
  };
  if (event.internal) envelope.internal = event.internal;
  return envelope;
}
