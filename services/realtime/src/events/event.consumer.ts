import { EVENTS_STREAM, EVENTS_SUBJECTS, type Logger, type NatsConnection } from '@kith/platform';
import { AckPolicy, DeliverPolicy, nanos, type ConsumerInfo, type ConsumerMessages, type JetStreamManager, type JsMsg } from 'nats';
import type { StreamEvent, StreamPosition } from '../domain/ports.js';
import { parseEnvelope } from './envelope.js';
import { JetStreamEventLog, apiCode } from './event.stream.js';
import { inConsumerSpans } from './trace.js';

const CONSUMER_NOT_FOUND = 10014;
const RETRY_MS = [100, 250, 500, 1000, 2000];
/** Handled messages acknowledged at once however soon (well under the server's max_ack_pending). */
const ACK_MAX_WAITING = 128;
/** A wider gap is only logged: reading that much back would hold every socket up. */
const MAX_GAP = 10_000;

export interface EventConsumerOptions {
  /** The durable consumer's name: the same name after a restart resumes where it stopped. */
  durableName: string;
  inactiveThresholdMs: number;
  /**
   * Handled events are acknowledged together (ack policy `all`: one ack covers every message up
   * to it), at most this long after they were handled. What a crash leaves unacknowledged is
   * delivered again and dropped by each connection's stream position.
   */
  ackDelayMs: number;
}

/** Handles events in stream order; throws when they must be tried again. */
export type EventHandler = (events: StreamEvent[]) => Promise<void>;

/**
 * This replica's durable consumer of every event. Events are handled in batches (whatever arrived
 * while the previous batch was handled), in stream order, and acknowledged only once handled; a
 * batch whose handler fails (the session store is down) is retried, never skipped, so nothing is
 * lost and sockets see events in order.
 */
export class EventConsumer implements StreamPosition {
  private currentSeq: number;
  private processedSeq: number;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private messages: ConsumerMessages | undefined;
  /** The last handled message, not acknowledged yet, and how many are waiting with it. */
  private unacked: JsMsg | undefined;
  private unackedCount = 0;
  private ackTimer: NodeJS.Timeout | undefined;
  /**
   * Every message up to here was handled, none skipped: a message after a gap means the server
   * delivered some this process never got (lost with a connection). One ack would cover them,
   * so they are read back from the stream. Unknown after a restart with messages unacknowledged.
   */
  private handledUpTo: number | undefined;
  private readonly log: JetStreamEventLog;

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
    this.handledUpTo = info.num_ack_pending === 0 ? info.delivered.stream_seq : undefined;
    this.log = new JetStreamEventLog(nc, jsm, logger);
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

  /** Stops taking events; resolves once the batch in hand is handled (or given up to be redelivered). */
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

  /**
   * Reads messages into a queue while the batch before them is handled, so a batch is everything
   * that arrived meanwhile. Returns once the pull ends (or stopping); throws the pull's error.
   */
  private async take(messages: ConsumerMessages, handler: EventHandler): Promise<void> {
    const queue: JsMsg[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    let failure: unknown;
    const reading = (async () => {
      try {
        for await (const m of messages) {
          queue.push(m);
          wake?.();
        }
      } catch (err) {
        failure = err;
      } finally {
        ended = true;
        wake?.();
      }
    })();
    try {
      while (!this.stopping) {
        if (queue.length === 0) {
          if (ended) break;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          // The rest of what one socket read brought reaches the queue over the following microtasks.
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        if (!(await this.handleBatch(queue.splice(0), handler))) break;
      }
    } finally {
      this.ackNow();
    }
    await reading;
    if (failure) throw failure;
  }

  /** True once handled; false when stopping first (the batch stays unacknowledged, for redelivery). */
  private async handleBatch(batch: JsMsg[], handler: EventHandler): Promise<boolean> {
    // Redelivered messages (after a crash) may come after later ones: the batch reaches its highest.
    const last = batch.reduce((a, b) => (b.seq > a.seq ? b : a));
    this.currentSeq = Math.max(this.currentSeq, last.seq);
    const received: (StreamEvent & { msg: JsMsg })[] = [];
    for (const msg of batch) {
      const event = parseEnvelope(msg.data);
      // Not an event: skipped, and acknowledged with the rest.
      if (event) received.push({ event, streamSeq: msg.seq, msg });
      else this.logger.warn({ stream_seq: msg.seq, subject: msg.subject }, 'skipped a stream message that is not an event envelope');
    }
    const lowest = batch.reduce((a, b) => (b.seq < a.seq ? b : a)).seq;
    const missed =
      this.handledUpTo !== undefined && lowest > this.handledUpTo + 1 ? await this.readMissed(this.handledUpTo + 1, lowest - 1) : [];
    const events = missed.length > 0 ? [...missed, ...received] : received;
    if (events.length > 0 && !(await inConsumerSpans(received, () => this.handle(handler, events, batch)))) return false;
    this.processedSeq = Math.max(this.processedSeq, last.seq);
    this.handledUpTo = Math.max(this.handledUpTo ?? 0, last.seq);
    this.ackLater(last);
    return true;
  }

  private async handle(handler: EventHandler, events: StreamEvent[], batch: JsMsg[]): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await handler(events);
        return true;
      } catch (err) {
        if (this.stopping) return false;
        const first = events[0]!;
        this.logger.warn({ err, stream_seq: first.streamSeq, events: events.length, attempt }, 'event dispatch failed; retrying');
        // Keeps the server from redelivering them meanwhile (ack wait).
        for (const m of batch) m.working();
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
      }
    }
  }

  /** The events of a gap in what was delivered, from the stream itself (those it still holds). */
  private async readMissed(from: number, to: number): Promise<StreamEvent[]> {
    this.logger.warn({ from, to }, 'stream messages delivered to this replica never arrived; reading them from the stream');
    if (to - from >= MAX_GAP) return [];
    const events: StreamEvent[] = [];
    await this.log
      .read(from, to, async (event, streamSeq) => void events.push({ event, streamSeq }))
      .catch((err: unknown) => this.logger.warn({ err, from, to }, 'could not read the missed stream messages'));
    return events;
  }

  /** Acknowledges `m` and every message before it, soon (see `ackDelayMs`). */
  private ackLater(m: JsMsg): void {
    if (!this.unacked || m.seq > this.unacked.seq) this.unacked = m;
    if (++this.unackedCount >= ACK_MAX_WAITING) return this.ackNow();
    this.ackTimer ??= setTimeout(() => this.ackNow(), this.options.ackDelayMs).unref();
  }

  private ackNow(): void {
    clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    this.unacked?.ack();
    this.unacked = undefined;
    this.unackedCount = 0;
  }
}

/**
 * The replica's durable consumer; made anew (after `startAfter` when given) if it does not exist,
 * or where it stopped if it acknowledges each message (as an earlier version made it).
 */
async function ensureDurable(jsm: JetStreamManager, options: EventConsumerOptions, startAfter?: number): Promise<ConsumerInfo> {
  try {
    const info = await jsm.consumers.info(EVENTS_STREAM, options.durableName);
    if (info.config.ack_policy === AckPolicy.All) return info;
    // A consumer's ack policy cannot be changed in place.
    startAfter = info.num_ack_pending === 0 ? info.delivered.stream_seq : info.ack_floor.stream_seq;
    await jsm.consumers.delete(EVENTS_STREAM, options.durableName);
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
    ack_policy: AckPolicy.All,
    // One subject filter: NATS 2.9 knows no filter_subjects.
    filter_subject: EVENTS_SUBJECTS,
    inactive_threshold: nanos(options.inactiveThresholdMs),
  });
}
