import { EVENTS_STREAM, EVENTS_SUBJECTS, type EventEnvelope, type Logger, type NatsConnection } from '@kith/platform';
import type { JetStreamManager } from 'nats';
import type { EventLogPort } from '../domain/ports.js';
import { parseEnvelope } from './envelope.js';

/** JetStream's own error code of a failed API request. */
export const apiCode = (err: unknown): number | undefined => (err as { api_error?: { err_code?: number } }).api_error?.err_code;

/** How long a replay may go without a message before it is abandoned (the stream lost some). */
const REPLAY_IDLE_MS = 5_000;

/** The EVENTS stream read from a position, through a short-lived ordered consumer. */
export class JetStreamEventLog implements EventLogPort {
  constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly logger: Logger,
  ) {}

  async bounds(): Promise<{ first: number; last: number }> {
    const { state } = await this.jsm.streams.info(EVENTS_STREAM);
    return { first: state.first_seq, last: state.last_seq };
  }

  async read(from: number, to: number, each: (event: EventEnvelope, streamSeq: number) => Promise<void>): Promise<void> {
    const consumer = await this.nc.jetstream().consumers.get(EVENTS_STREAM, { opt_start_seq: from, filterSubjects: EVENTS_SUBJECTS });
    const messages = await consumer.consume({ max_messages: 256 });
    let reached = false;
    let timer = setTimeout(() => messages.stop(), REPLAY_IDLE_MS);
    try {
      for await (const m of messages) {
        if (m.seq > to) {
          reached = true;
          break;
        }
        const event = parseEnvelope(m.data);
        if (event) await each(event, m.seq);
        else this.logger.warn({ stream_seq: m.seq }, 'skipped a stream message that is not an event envelope');
        // pending 0: nothing further in the stream (messages up to `to` may have been deleted).
        if (m.seq >= to || m.info.pending === 0) {
          reached = true;
          break;
        }
        clearTimeout(timer);
        timer = setTimeout(() => messages.stop(), REPLAY_IDLE_MS);
      }
    } finally {
      clearTimeout(timer);
      // stop(), not close(): close() never returns after leaving the loop (nats.js 2.29).
      messages.stop();
      await consumer.delete().catch(() => undefined);
    }
    if (!reached) throw new Error(`replay of stream events ${from}..${to} did not finish`);
  }
}
