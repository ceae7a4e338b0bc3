import { CLOSE_REASONS } from '../gateway/protocol.js';
import type { EventEnvelope } from '@kith/platform';

/** How frames reach the client; compression lives behind it. */
export interface Transport {
  send(frame: string): void;
  close(code: number, reason: string): void;
  /** Identify's `compress: true`: each later frame is zlib-deflated on its own and sent as binary. */
  compressEachFrame(): void;
  /** Runs `fn`, whose frames may leave together (one write to the socket for all of them). */
  together?(fn: () => void): void;
}

/** The gateway session a connection carries once identified or resumed. */
export interface SessionRef {
  id: string;
  userId: string;
  authSessionId: string;
  authSessionIdHash: string;
}

/**
 * `hello`: connected, not identified; `identifying`: an Identify or Resume is being checked;
 * `ready`: identified or resumed; `closed`: gone (or going), nothing more is sent.
 */
export type Phase = 'hello' | 'identifying' | 'ready' | 'closed';

/** The platform's send limit: 120 frames a minute per connection. */
const RATE_LIMIT = 120;
const RATE_WINDOW_MS = 60_000;

/**
 * One client connection. Kept small on purpose (thousands per process): plain fields, no timers,
 * no closures; the heartbeat deadline is checked by one sweep over all connections.
 */
export class GatewayConnection {
  phase: Phase = 'hello';
  session: SessionRef | null = null;
  /** The last sequence number sent. */
  seq = 0;
  /** The stream position this connection is caught up to; events at or before it are never sent again. */
  streamSeq = 0;
  /** While an Identify or Resume catches up, live events wait here instead of being sent. */
  pending: { event: EventEnvelope; streamSeq: number }[] | null = null;
  /**
   * The guilds the session's user is a member of (from READY, kept with the session for a resume,
   * changed by the GUILD_CREATE and GUILD_DELETE the connection is sent): events for a guild
   * audience reach the connection when its guild is here.
   */
  guilds = new Set<string>();
  /** Guilds this connection's session is a guest of (guest invites): the access ends when the connection does. */
  guestGuilds = new Set<string>();
  /** A bot's session, and the intents it identified with (what op 8 gives it). */
  bot = false;
  intents = 0;
  /** The session was ended (revoked): nothing is recorded for it on close. */
  ended = false;
  lastBeatAt: number;
  private windowStart: number;
  private framesInWindow = 0;

  constructor(
    readonly id: string,
    private readonly transport: Transport,
    readonly clientIp: string,
    /** The protocol version asked for with `?v=`. */
    readonly version: number,
    now: number,
  ) {
    this.lastBeatAt = now;
    this.windowStart = now;
  }

  get open(): boolean {
    return this.phase !== 'closed';
  }

  send(frame: string): void {
    if (this.open) this.transport.send(frame);
  }

  /** Runs `fn`, whose `send`s may reach the socket in one write. */
  together(fn: () => void): void {
    if (this.transport.together) this.transport.together(fn);
    else fn();
  }

  compressEachFrame(): void {
    this.transport.compressEachFrame();
  }

  close(code: number): void {
    if (!this.open) return;
    this.phase = 'closed';
    this.transport.close(code, CLOSE_REASONS[code] ?? '');
  }

  /** Counts a frame from the client; false once it has sent more than the limit in the current window. */
  allowFrame(now: number): boolean {
    if (now - this.windowStart >= RATE_WINDOW_MS) {
      this.windowStart = now;
      this.framesInWindow = 0;
    }
    return ++this.framesInWindow <= RATE_LIMIT;
  }
}
