import { EVENTS_STREAM, EVENTS_SUBJECTS, type EventEnvelope, type Logger, type NatsConnection } from '@kith/platform';
import { AckPolicy, DeliverPolicy, nanos, type ConsumerInfo, type ConsumerMessages, type JetStreamManager } from 'nats';
import type { StreamPosition } from '../domain/ports.js';
import { parseEnvelope } from './envelope.js';
import { apiCode } from './event.stream.js';
import { inConsumerSpan } from './trace.js';

const CONSUMER_NOT_FOUND = 10014;
const RETRY_MS = [100, 250, 500, 1000, 2000];

export interface EventConsumerOptions {
  /** The durable consumer's name: the same name after a restart resumes where it stopped. */
  durableName: string;
  inactiveThresholdMs: number;
}

export type EventHandler = (event: EventEnvelope, streamSeq: number) => Promise<void>;

/**
 * This replica's durable consumer of every event. Events are handled one at a time, in stream
 * order, and acknowledged only once handled; a handler that fails (the session store is down)
 * is retried, never skipped, so nothing is lost and sockets see events in order.
 */
export class EventConsumer implements StreamPosition {
  private currentSeq: number;
  private processedSeq: number;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private messages: ConsumerMessages | undefined;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly options: EventConsumerOptions,
    private readonly logger: Logger,
    info: ConsumerInfo,
  ) {
    // With nothing awaiting an ack, everything delivered so far was handled (a new consumer
    // starts delivered at the stream's end); otherwise only up to the ack floor.
    this.processedSeq = info.num_ack_pending === 0 ? info.delivered.stream_seq : info.ack_floor.stream_seq;
    this.currentSeq = this.processedSeq;
  }

  /** Finds (or creates) the durable consumer; events flow once `start` is called. */
  static async create(nc: NatsConnection, jsm: JetStreamManager, options: EventConsumerOptions, logger: Logger): Promise<EventConsumer> {
    return new EventConsumer(nc, jsm, options, logger, await ensureDurable(jsm, options));
  }

  current(): number {
    return this.currentSeq;
  }

  processed(): number {
    return this.processedSeq;
  }

  /** Stops taking events; resolves once the one in hand is handled (or given up to be redelivered). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.messages?.stop();
    await this.loop;
  }

  /** Starts taking events (the first pull is made before this resolves: a broken setup fails the start). */
  async start(handler: EventHandler): Promise<void> {
    const messages = await this.open();
    this.loop = this.run(messages, handler);
  }

  private async open(): Promise<ConsumerMessages> {
    const consumer = await this.nc.jetstream().consumers.get(EVENTS_STREAM, this.options.durableName);
    // Without abort_on_missing_resource a deleted consumer is waited for forever; with it the
    // pull ends and `run` makes the consumer again.
    this.messages = await consumer.consume({ max_messages: 256, abort_on_missing_resource: true });
    return this.messages;
  }

  /** Takes events until stopped; should the pull end on its own (consumer deleted, say), it is set up again. */
  private async run(first: ConsumerMessages, handler: EventHandler): Promise<void> {
    let messages: ConsumerMessages | undefined = first;
    while (!this.stopping) {
      try {
        if (messages) await this.take(messages, handler);
      } catch (err) {
        this.logger.error({ err }, 'event consumer failed');
      }
      if (this.stopping) return;
      this.logger.warn('event consumer ended; setting it up again');
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS.at(-1)));
      messages = await ensureDurable(this.jsm, this.options, this.processedSeq)
        .then(() => this.open())
        .catch((err: unknown) => void this.logger.error({ err }, 'event consumer setup failed'));
    }
  }

  private async take(messages: ConsumerMessages, handler: EventHandler): Promise<void> {
    for await (const m of messages) {
      this.currentSeq = Math.max(this.currentSeq, m.seq);
      const event = parseEnvelope(m.data);
      if (!event) {
        this.logger.warn({ stream_seq: m.seq, subject: m.subject }, 'skipped a stream message that is not an event envelope');
        m.term();
      } else if (await inConsumerSpan(m, event.id, () => this.handle(handler, event, m.seq, () => m.working()))) {
        m.ack();
      } else return;
      this.processedSeq = Math.max(this.processedSeq, m.seq);
    }
  }

  /** True once handled; false when stopping first (the event stays unacknowledged, for redelivery). */
  private async handle(handler: EventHandler, event: EventEnvelope, seq: number, working: () => void): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await handler(event, seq);
        return true;
      } catch (err) {
        if (this.stopping) return false;
        this.logger.warn({ err, stream_seq: seq, event: event.name, attempt }, 'event dispatch failed; retrying');
        // Keeps the server from redelivering it meanwhile (ack wait).
        working();
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
      }
    }
  }
}

/** The replica's durable consumer; made anew (after `startAfter` when given) if it does not exist. */
async function ensureDurable(jsm: JetStreamManager, options: EventConsumerOptions, startAfter?: number): Promise<ConsumerInfo> {
  try {
    return await jsm.consumers.info(EVENTS_STREAM, options.durableName);
  } catch (err) {
    if (apiCode(err) !== CONSUMER_NOT_FOUND) throw err;
  }
  return jsm.consumers.add(EVENTS_STREAM, {
    durable_name: options.durableName,
    // A new replica has no sockets yet: the events before it are no one's to deliver here. One
    // whose consumer vanished under it goes on from where it was.
    ...(startAfter
      ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startAfter + 1 }
      : { deliver_policy: DeliverPolicy.New }),
    ack_policy: AckPolicy.Explicit,
    // One subject filter: NATS 2.9 knows no filter_subjects.
    filter_subject: EVENTS_SUBJECTS,
    inactive_threshold: nanos(options.inactiveThresholdMs),
  });
}
