import { randomBytes } from 'node:crypto';
import type { Logger } from '@kith/platform';
import {
  Close,
  Op,
  QOS_HEARTBEAT,
  SESSION_ENDING_CLOSES,
  decodeFrame,
  dispatchFrame,
  formAccepted,
  identifyData,
  isKnownOp,
  opFrame,
  presenceData,
  presentedToken,
  resumeData,
} from '../gateway/protocol.js';
import type { GatewayConnection, SessionRef } from './connection.js';
import type { Delivery } from './delivery.js';
import { MemberRequests, requestGuildMembersData } from './member-requests.js';
import { audienceIncludes } from './membership.js';
import type {
  AuthPort,
  EventLogPort,
  GuildsPort,
  ConnectionCountsPort,
  Presence,
  PresencePort,
  PresenceReader,
  PresenceView,
  ReadyGuilds,
  SessionReplies,
  SessionStorePort,
  SocialPort,
  StreamEvent,
  StreamPosition,
  TokenOwner,
} from './ports.js';
import { readyPayload } from './ready.js';

export interface GatewayOptions {
  heartbeatIntervalMs: number;
  /** READY's `resume_gateway_url`. */
  publicUrl: string;
}

export interface GatewayDeps {
  auth: AuthPort;
  /** The social graph, for READY's relationships; absent where social is not deployed. */
  social?: SocialPort;
  /** The user's guilds and private channels, for READY and for guild event delivery; absent where guilds is not deployed. */
  guilds?: GuildsPort;
  store: SessionStorePort;
  /** Presence updates (op 3); absent, they are accepted and not acted on. */
  presence?: PresencePort;
  /** Who of a user's friends (READY) or a guild's members (op 8) is online, and how. */
  presences?: PresenceReader;
  /** Dispatches answering one session's request (op 8's chunks). */
  replies?: SessionReplies;
  events: EventLogPort;
  position: StreamPosition;
  delivery: Delivery;
  /** Counts each user's ready connections; absent, nobody hears of a user's last one closing. */
  connections?: ConnectionCountsPort;
  logger: Logger;
  options: GatewayOptions;
  now?: () => number;
}

const sessionRef = (id: string, account: TokenOwner): SessionRef => ({
  id,
  userId: account.userId,
  authSessionId: account.authSessionId,
  authSessionIdHash: account.authSessionIdHash,
});

/** The ids of the friends (type 1) among READY's relationships. */
const friendsIn = (relationships: unknown[]): string[] =>
  relationships.flatMap((r) => {
    const { id, type } = r as { id?: unknown; type?: unknown };
    return type === 1 && typeof id === 'string' ? [id] : [];
  });

/** A presence as others see it: invisible shows as offline, with nothing of what the user is doing. */
const shownPresence = (status: Presence['status'] | 'invisible', activities: unknown[]): Presence =>
  status === 'invisible' || status === 'offline' ? { status: 'offline', activities: [] } : { status, activities };

/** A client that skips heartbeats for this many intervals is taken for dead (its network went away). */
const HEARTBEAT_GRACE = 1.5;

/** The gateway protocol of one process: Hello, heartbeats, Identify, Resume, the zombie sweep and shutdown. */
export class GatewayService {
  private readonly conns = new Set<GatewayConnection>();
  /** Ready connections counted online, by their user: each is counted off once when it goes. */
  private readonly counted = new Map<GatewayConnection, string>();
  private readonly now: () => number;
  private readonly memberRequests: MemberRequests;

  constructor(private readonly deps: GatewayDeps) {
    this.now = deps.now ?? Date.now;
    this.memberRequests = new MemberRequests(deps);
  }

  get connections(): number {
    return this.conns.size;
  }

  open(conn: GatewayConnection): void {
    this.conns.add(conn);
    conn.send(opFrame(Op.Hello, { heartbeat_interval: this.deps.options.heartbeatIntervalMs }));
  }

  /**
   * The socket is gone, whoever closed it; `code` is the one it closed with. A client that closes
   * with 1000 or 1001 is done with its session: a later resume of it gets op 9. Any other close
   * (a dropped network, a client going to resume) keeps it resumable.
   */
  closed(conn: GatewayConnection, code?: number): void {
    this.conns.delete(conn);
    const byClient = conn.open;
    conn.phase = 'closed';
    const session = conn.session;
    if (byClient && code !== undefined && SESSION_ENDING_CLOSES.has(code)) this.deps.delivery.end(conn);
    else this.deps.delivery.release(conn);
    this.countOff(conn, session);
  }

  /** Ends the connection with a close code, recording where its session got. */
  close(conn: GatewayConnection, code: number): void {
    this.conns.delete(conn);
    const session = conn.session;
    this.deps.delivery.release(conn, code);
    this.countOff(conn, session);
  }

  /**
   * The connection is ready (identified or resumed): its user is online through it, as `requested`
   * (Identify's presence) when they were not yet. `friendIds`: the user's friends as READY just
   * read them, so announcing the presence need not ask social again.
   */
  private countOn(conn: GatewayConnection, userId: string, requested?: Presence, friendIds?: readonly string[]): void {
    const { connections, presence, logger } = this.deps;
    if (this.counted.has(conn)) return;
    this.counted.set(conn, userId);
    connections?.online(userId).catch((err: unknown) => logger.warn({ err }, 'presence not counted'));
    presence
      ?.connected(userId, conn.id, requested, [...conn.guilds], friendIds)
      .catch((err: unknown) => logger.warn({ err }, 'presence not announced'));
  }

  private countOff(conn: GatewayConnection, session: SessionRef | null): void {
    // A guest's access lasts as long as the connection it was given to (guilds ends it on this).
    if (session && conn.guestGuilds.size > 0) {
      const guildIds = [...conn.guestGuilds];
      conn.guestGuilds.clear();
      this.deps.connections
        ?.guestLeft(session.userId, session.id, guildIds)
        .catch((err: unknown) => this.deps.logger.warn({ err }, 'guest departure not announced'));
    }
    const userId = this.counted.get(conn);
    if (userId === undefined) return;
    this.counted.delete(conn);
    this.deps.connections?.offline(userId).catch((err: unknown) => this.deps.logger.warn({ err }, 'presence not counted off'));
    // An ended session (closed with 1000/1001, or revoked) cannot come back; any other close can, within the resume window.
    this.deps.presence
      ?.disconnected(userId, conn.id, !conn.ended, [...conn.guilds])
      .catch((err: unknown) => this.deps.logger.warn({ err }, 'offline presence not announced'));
  }

  async receive(conn: GatewayConnection, raw: Buffer | ArrayBuffer | Buffer[]): Promise<void> {
    if (!conn.open) return;
    if (!conn.allowFrame(this.now())) return this.close(conn, Close.RateLimited);
    const frame = decodeFrame(raw);
    if (!frame) return this.close(conn, Close.DecodeError);
    switch (frame.op) {
      case Op.Heartbeat:
      case QOS_HEARTBEAT:
        conn.lastBeatAt = this.now();
        conn.send(opFrame(Op.HeartbeatAck, null));
        if (conn.phase === 'ready') this.deps.delivery.touch(conn);
        return;
      case Op.Identify:
        if (conn.phase !== 'hello') return this.close(conn, Close.AlreadyAuthenticated);
        return this.guard(conn, () => this.identify(conn, frame.d));
      case Op.Resume:
        if (conn.phase !== 'hello') return this.close(conn, Close.AlreadyAuthenticated);
        return this.guard(conn, () => this.resume(conn, frame.d));
    }
    if (!isKnownOp(frame.op)) return this.close(conn, Close.UnknownOpcode);
    if (conn.phase !== 'ready') return this.close(conn, Close.NotAuthenticated);
    if (frame.op === Op.PresenceUpdate) return this.presenceUpdate(conn, frame.d);
    if (frame.op === Op.RequestGuildMembers) return this.requestGuildMembers(conn, frame.d);
    // Every other documented opcode is accepted; those Kith keeps no state for are ignored.
  }

  /** Op 3: kept and told to the user's friends and guild members; an invalid payload is 4001, as the platform closes it. */
  private async presenceUpdate(conn: GatewayConnection, data: unknown): Promise<void> {
    const parsed = presenceData.safeParse(data);
    if (!parsed.success) return this.close(conn, Close.UnknownOpcode);
    if (!this.deps.presence || !conn.session) return;
    const { status, activities } = parsed.data;
    try {
      await this.deps.presence.update(conn.session.userId, shownPresence(status, activities), [...conn.guilds]);
    } catch (err) {
      this.deps.logger.warn({ err }, 'presence update failed');
    }
  }

  /** Op 8: answered with GUILD_MEMBERS_CHUNK; an invalid payload is 4001, as for op 3. */
  private async requestGuildMembers(conn: GatewayConnection, data: unknown): Promise<void> {
    const parsed = requestGuildMembersData.safeParse(data);
    if (!parsed.success) return this.close(conn, Close.UnknownOpcode);
    const session = conn.session;
    if (!session) return;
    const requester = { userId: session.userId, sessionId: session.id, bot: conn.bot, intents: conn.intents };
    await this.memberRequests.handle(conn, requester, parsed.data);
  }

  /** Closes connections whose heartbeat is overdue. One pass over all of them, instead of a timer each. */
  sweep(): void {
    const deadline = this.now() - this.deps.options.heartbeatIntervalMs * HEARTBEAT_GRACE;
    for (const conn of this.conns) if (conn.lastBeatAt < deadline) this.close(conn, Close.SessionTimedOut);
  }

  /** Tells every client to reconnect (op 7), gives them `graceMs` to leave, then closes the rest resumably. */
  async shutdown(graceMs: number): Promise<void> {
    for (const conn of this.conns) conn.send(opFrame(Op.Reconnect, null));
    const until = this.now() + graceMs;
    while (this.conns.size > 0 && this.now() < until) await new Promise((resolve) => setTimeout(resolve, 25));
    for (const conn of this.conns) this.close(conn, Close.UnknownError);
    await this.deps.delivery.settled();
  }

  /** An Identify or Resume that fails on our side (auth or a store down) ends with 4000: the client may try again. */
  private async guard(conn: GatewayConnection, flow: () => Promise<void>): Promise<void> {
    conn.phase = 'identifying';
    try {
      await flow();
    } catch (err) {
      this.deps.logger.warn({ err }, 'identify or resume failed');
      this.close(conn, Close.UnknownError);
    }
  }

  /**
   * A part of READY from a service that may be absent or down: an outage leaves the part empty
   * rather than keeping everyone offline. Without guilds the user is online and sees their DMs
   * and friends; their guilds (and guild events) come with the next Identify.
   */
  private async readyPart<T>(what: string, read: (() => Promise<T>) | undefined, empty: T): Promise<T> {
    if (!read) return empty;
    try {
      return await read();
    } catch (err) {
      this.deps.logger.warn({ err }, `${what} unavailable for READY`);
      return empty;
    }
  }

  private async identify(conn: GatewayConnection, data: unknown): Promise<void> {
    const { auth, social, guilds: guildsPort, store, delivery, events, position, options } = this.deps;
    const parsed = identifyData.safeParse(data);
    if (!parsed.success) return this.close(conn, Close.DecodeError);
    const identify = parsed.data;
    const account = await this.authenticate(identify.token, conn);
    if (!account) return this.close(conn, Close.AuthenticationFailed);
    // The stream's end is read before the snapshot READY carries: whatever happens after it is
    // delivered as an event (at worst repeating what the snapshot already shows), never lost
    // between the two. Without the stream's end (NATS unreachable), the replica's own position is
    // the best there is. A replica still working through a backlog (just restarted) must not send
    // what happened before READY.
    const streamEnd = await events.bounds().then(
      ({ last }) => last,
      () => 0,
    );
    // Attached (catching up) before the snapshot is read, so an event routed meanwhile waits in
    // the queue instead of passing the connection by: a guild joined while READY is put together
    // arrives as its GUILD_CREATE, and the guild's events after it follow.
    const sessionId = randomBytes(16).toString('hex');
    const session = sessionRef(sessionId, account);
    delivery.attach(conn, session);
    delivery.own(conn);
    const startsAfter = Math.max(position.current(), streamEnd);
    const { userId } = account;
    conn.bot = account.bot;
    conn.intents = identify.intents ?? 0;
    const [stillValid, current, relationships, guilds] = await Promise.all([
      this.stillValid(identify.token, conn, account),
      auth.currentUser(userId),
      this.readyPart<unknown[] | undefined>('relationships', social && (() => social.relationships(userId)), undefined),
      this.readyPart<ReadyGuilds>('guilds', guildsPort && (() => guildsPort.readyState(userId)), {
        guilds: [],
        privateChannels: [],
        guildIds: [],
      }),
    ]);
    if (!conn.open) return;
    if (!stillValid) return this.revoked(conn);
    conn.guilds = new Set(guilds.guildIds);
    // Unread (social absent or down), the friends are asked for again when the presence is announced.
    const friendIds = relationships && friendsIn(relationships);
    const presences = await this.friendPresences(friendIds ?? []);

    const ready = dispatchFrame(
      'READY',
      1,
      readyPayload({
        version: conn.version,
        sessionId,
        resumeUrl: options.publicUrl,
        account,
        current,
        identify,
        relationships: relationships ?? [],
        guilds,
        presences,
      }),
    );
    await store.create(
      sessionId,
      { ...session, owner: conn.id, streamSeq: startsAfter, guildIds: guilds.guildIds, intents: conn.intents },
      ready,
    );
    if (!conn.open) return;
    if (identify.compress) conn.compressEachFrame();
    conn.seq = 1;
    conn.streamSeq = startsAfter;
    conn.phase = 'ready';
    const requested = identify.presence;
    this.countOn(
      conn,
      userId,
      requested && requested.status !== 'unknown' ? shownPresence(requested.status, requested.activities) : undefined,
      friendIds,
    );
    conn.send(ready);
    await delivery.drain(conn);
  }

  /** READY's presences: the user's friends who are online (a presence store outage leaves it empty). */
  private friendPresences(friendIds: readonly string[]): Promise<PresenceView[]> {
    const reader = this.deps.presences;
    return this.readyPart('presences', reader && (() => reader.presences(friendIds)), []);
  }

  private async resume(conn: GatewayConnection, data: unknown): Promise<void> {
    const { store, delivery, events } = this.deps;
    const parsed = resumeData.safeParse(data);
    if (!parsed.success) return this.close(conn, Close.DecodeError);
    const { token, session_id: sessionId, seq } = parsed.data;
    const account = await this.authenticate(token, conn);
    if (!account) return this.close(conn, Close.AuthenticationFailed);
    if (!conn.open) return;

    // Attached before anything is read, so no live event falls between the replay and live dispatch.
    const session = sessionRef(sessionId, account);
    delivery.attach(conn, session);
    const claim = await store.claim(sessionId, { ...session, clientSeq: seq ?? 0, owner: conn.id });
    if (claim.status !== 'ok') return this.invalidSession(conn, claim.status);
    if (!conn.open) return;
    delivery.own(conn);
    conn.bot = account.bot;
    conn.intents = claim.intents;
    conn.seq = claim.seq;
    conn.streamSeq = claim.streamSeq;
    // The session's guilds at its stream position, whichever replica served it: the replay below
    // applies the same audience rule live dispatch did, and its GUILD_CREATE/DELETE move them on.
    conn.guilds = new Set(claim.guildIds);

    const [{ first, last }, stillValid] = await Promise.all([events.bounds(), this.stillValid(token, conn, account)]);
    if (!conn.open) return;
    if (!stillValid) return this.revoked(conn);
    if (last > conn.streamSeq && first > conn.streamSeq + 1) {
      // What the session missed has already left the stream: it cannot be replayed exactly.
      await store.end(sessionId);
      return this.invalidSession(conn, 'expired');
    }
    for (const frame of claim.frames) conn.send(frame);
    if (last > conn.streamSeq) {
      const missed: StreamEvent[] = [];
      await events.read(conn.streamSeq + 1, last, async (event, streamSeq) => void missed.push({ event, streamSeq }));
      // In stream order, checking each audience against the guilds the events before it left.
      for (const { event, streamSeq } of await delivery.firstCopies(missed)) {
        if (audienceIncludes(event.audience, session, conn.guilds)) await delivery.deliverTo(conn, event, streamSeq);
      }
    }
    if (!conn.open) return;
    conn.streamSeq = Math.max(conn.streamSeq, last);
    conn.phase = 'ready';
    this.countOn(conn, account.userId);
    // RESUMED marks this connection, not an event of the session: no sequence number, never replayed.
    conn.send(dispatchFrame('RESUMED', null, {}));
    await delivery.drain(conn);
  }

  /**
   * The token's session asked about again, once the connection is attached at its stream
   * position. A logout that commits before this answer is seen here; one that commits after it
   * publishes its revocation later in the stream than the position, so the connection gets it as
   * an event. Checked only once, a logout racing the Identify could fall between the two: its
   * event before the position, its commit after the first check.
   */
  private async stillValid(token: string, conn: GatewayConnection, account: TokenOwner): Promise<boolean> {
    const again = await this.authenticate(token, conn);
    return again?.authSessionId === account.authSessionId;
  }

  /** The token's owner, when the token is valid and came in a form its kind may use (else none: 4004). */
  private async authenticate(token: string, conn: GatewayConnection): Promise<TokenOwner | null> {
    const presented = presentedToken(token);
    if (presented.form === 'bearer' || presented.token === '') return null;
    const owner = await this.deps.auth.validate(presented.token, conn.clientIp);
    return owner && formAccepted(presented.form, owner) ? owner : null;
  }

  /** The session ended while the connection was being set up: closed as a revoked one is, nothing recorded. */
  private revoked(conn: GatewayConnection): void {
    conn.ended = true;
    this.close(conn, Close.AuthenticationFailed);
  }

  /** op 9 with `d: false`: the client starts a new session (it may Identify on this same connection). */
  private invalidSession(conn: GatewayConnection, why: string): void {
    this.deps.logger.info({ why }, 'resume refused');
    this.deps.delivery.detach(conn);
    if (!conn.open) return;
    conn.phase = 'hello';
    conn.send(opFrame(Op.InvalidSession, false));
  }
}
