import { eventSubject, type EventEnvelope, type Logger, type NatsConnection } from '@kith/platform';

type Subscription = ReturnType<NatsConnection['subscribe']>;

/**
 * auth's outbox publishes this when sessions end. The edge reads it as a plain subscriber (no
 * consumer state): what it misses while disconnected is covered by dropping the cache then.
 */
const SESSION_CHANGE_SUBJECT = eventSubject('auth', 'AUTH_SESSION_CHANGE');

/** What the feed drives: the token cache. */
export interface RevocationSink {
  revoke(sessionIds: Iterable<string>): void;
  feedUp(): void;
  feedDown(): void;
}

export interface FeedOptions {
  /** How often the connection is proven alive with a PING. */
  heartbeatMs: number;
  /** No PONG for this long and the feed counts as lost, even with no disconnect seen. */
  staleAfterMs: number;
}

export const DEFAULT_FEED_OPTIONS: FeedOptions = { heartbeatMs: 250, staleAfterMs: 750 };

/**
 * Feeds auth's session revocations into the token cache and tells it whether the feed can be
 * trusted. It cannot while the connection is down or reconnecting, once the subscription is
 * closed, or when the server has not answered a PING for `staleAfterMs`: a half-open TCP
 * connection reports no disconnect for minutes, while events published meanwhile are lost. On
 * reconnect the feed is trusted again only after a round trip, which proves the server has the
 * re-sent subscription. Why this is enough: the events come from auth's outbox relay through the
 * same NATS; if auth cannot publish, NATS is down for the edge as well and the cache has been
 * dropped. A relay that merely lags (NOTIFY lost: it polls every 250 ms) delays eviction by that.
 */
export class RevocationFeed {
  private readonly subscription: Subscription;
  private timer: NodeJS.Timeout | undefined;
  private lastPong = 0;
  private pinging = false;
  private connected = true;
  private closed = false;

  constructor(
    private readonly nats: NatsConnection,
    private readonly sink: RevocationSink,
    private readonly logger: Logger,
    private readonly options: FeedOptions = DEFAULT_FEED_OPTIONS,
    private readonly now: () => number = Date.now,
  ) {
    this.subscription = nats.subscribe(SESSION_CHANGE_SUBJECT);
  }

  /** Starts reading events and watching the connection; the feed is live after the first PONG. */
  start(): void {
    void this.readEvents();
    void this.watchStatus();
    void this.subscription.closed.then(() => this.lose('subscription closed'));
    void this.nats.closed().then(() => this.lose('connection closed'));
    this.timer = setInterval(() => this.heartbeat(), this.options.heartbeatMs);
    this.timer.unref();
    this.heartbeat();
  }

  stop(): void {
    clearInterval(this.timer);
    this.closed = true;
    this.lastPong = 0;
    this.sink.feedDown();
  }

  private async readEvents(): Promise<void> {
    for await (const msg of this.subscription) {
      try {
        const revoked = msg.json<EventEnvelope>().internal?.revoked_session_ids;
        if (Array.isArray(revoked)) this.sink.revoke(revoked);
      } catch (err) {
        this.logger.warn({ err }, 'bad session change event');
      }
    }
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.nats.status()) {
      if (status.type === 'disconnect') {
        this.connected = false;
        this.lose('disconnected');
      } else if (status.type === 'reconnect') {
        this.connected = true;
        this.heartbeat();
      }
    }
  }

  private heartbeat(): void {
    if (this.closed) return;
    if (this.lastPong && this.now() - this.lastPong > this.options.staleAfterMs) this.lose('no pong');
    if (this.pinging || !this.connected || this.nats.isClosed()) return;
    this.pinging = true;
    // flush() is a PING: its PONG comes after the server has handled everything sent before it.
    this.nats.flush().then(
      () => {
        this.pinging = false;
        if (this.closed || !this.connected || this.subscription.isClosed()) return;
        this.lastPong = this.now();
        this.sink.feedUp();
      },
      () => void (this.pinging = false),
    );
  }

  private lose(reason: string): void {
    if (this.lastPong && !this.closed) this.logger.warn({ reason }, 'session revocation feed lost; token cache dropped');
    this.lastPong = 0;
    this.sink.feedDown();
  }
}
