import type { EventEnvelope, Logger } from '@kith/platform';
import { Close, DispatchFrames } from '../gateway/protocol.js';
import type { GatewayConnection, SessionRef } from './connection.js';
import { audienceIncludes, guestChange, membershipChange } from './membership.js';
import type { EventCopiesPort, FrameRecord, SessionAppend, SessionStorePort, StreamEvent, StreamPosition } from './ports.js';

/**
 * The identified connections of this process, by user, by guild and by session, and the one path
 * every event takes to a connection (live from the consumer, replayed on resume, or queued while a
 * connection catches up). A frame is recorded in the session store before it is sent, so a
 * client that loses it can have it again from any replica, and never gets it twice.
 *
 * A guild event is one stream message whatever the guild's size: the guild index finds the local
 * members' connections in O(local members). Only live connections are in it; one still catching
 * up gets every guild event queued and the audience is checked when it is sent, against the
 * guilds the session had at that point of the stream.
 */
export class Delivery {
  private readonly byUser = new Map<string, Set<GatewayConnection>>();
  private readonly byGuild = new Map<string, Set<GatewayConnection>>();
  private readonly catchingUp = new Set<GatewayConnection>();
  private readonly bySession = new Map<string, GatewayConnection>();
  private readonly writes = new Set<Promise<unknown>>();

  constructor(
    private readonly store: SessionStorePort,
    private readonly position: StreamPosition,
    private readonly logger: Logger,
    /** Drops the copies of events a relay published again; without it every message is an event. */
    private readonly copies: EventCopiesPort = { firstCopies: async (events) => [...events] },
  ) {}

  /** The stream events that are not copies of earlier ones (for a replay, as for live dispatch). */
  firstCopies(events: readonly StreamEvent[]): Promise<StreamEvent[]> {
    return this.copies.firstCopies(events);
  }

  get size(): number {
    return this.bySession.size;
  }

  /**
   * Registers the connection for its user's events and its guilds' (`guildIds`; a resume sets
   * them once the session is claimed); they queue until `drain` catches it up.
   */
  attach(conn: GatewayConnection, session: SessionRef, guildIds: Iterable<string> = []): void {
    conn.session = session;
    conn.pending = [];
    conn.guilds = new Set(guildIds);
    this.catchingUp.add(conn);
    addTo(this.byUser, session.userId, conn);
  }

  /** The connection now owns its session; another local one still holding it (its client came back before its socket was seen to drop) is done. */
  own(conn: GatewayConnection): void {
    if (!conn.session) return;
    const previous = this.bySession.get(conn.session.id);
    this.bySession.set(conn.session.id, conn);
    if (previous && previous !== conn) this.release(previous, Close.Superseded);
  }

  /** Forgets the connection without recording anything: its Identify or Resume did not go through. */
  detach(conn: GatewayConnection): void {
    const session = conn.session;
    if (!session) return;
    conn.session = null;
    if (conn.pending) this.catchingUp.delete(conn);
    else for (const guildId of conn.guilds) removeFrom(this.byGuild, guildId, conn);
    conn.pending = null;
    removeFrom(this.byUser, session.userId, conn);
    if (this.bySession.get(session.id) === conn) this.bySession.delete(session.id);
  }

  /**
   * Closes the connection (with `code`, unless it is already closed) and records how far its
   * session got, at once: events dispatched after this moment are not the connection's, so the
   * resume that follows must find them in the stream.
   */
  release(conn: GatewayConnection, code?: number): void {
    if (code !== undefined) conn.close(code);
    const session = conn.session;
    if (!session) return;
    const caughtUp = this.caughtUpTo(conn);
    this.detach(conn);
    if (!conn.ended) this.track(this.store.touch(session.id, conn.id, caughtUp));
  }

  /**
   * The client is done with its session (it closed with 1000 or 1001): forgotten, unless a
   * connection elsewhere has resumed it meanwhile.
   */
  end(conn: GatewayConnection): void {
    const session = conn.session;
    if (!session) return;
    conn.ended = true;
    this.release(conn);
    this.track(this.store.end(session.id, conn.id));
  }

  /** Keeps a live session's resume window open (on each heartbeat). */
  touch(conn: GatewayConnection): void {
    if (conn.session && conn.pending === null) this.track(this.store.touch(conn.session.id, conn.id, this.caughtUpTo(conn)));
  }

  /** Every event up to the returned position has been sent to the connection or was not its. */
  private caughtUpTo(conn: GatewayConnection): number {
    return conn.pending === null ? Math.max(conn.streamSeq, this.position.processed()) : conn.streamSeq;
  }

  /**
   * Live dispatch of stream events, in stream order, to the local connections of their audiences.
   * The frames of a run of events are recorded in one store round trip, then sent. An event that
   * changes who gets the events after it (a guild joined or left, an auth session revoked) is
   * dispatched on its own, so the routing of what follows sees the change. Throws if the store
   * fails, once the frames that were recorded have been sent: a retry sends the rest, nothing twice.
   */
  async deliver(stream: readonly StreamEvent[]): Promise<void> {
    const events = await this.copies.firstCopies(stream);
    let run: StreamEvent[] = [];
    for (const item of events) {
      if (!changesRouting(item.event)) {
        run.push(item);
        continue;
      }
      if (run.length > 0) await this.deliverRun(run);
      await this.deliverRun([item]);
      run = [];
    }
    if (run.length > 0) await this.deliverRun(run);
  }

  /** Sends the events queued while the connection caught up, then switches it to live dispatch. */
  async drain(conn: GatewayConnection): Promise<void> {
    while (conn.pending?.length) {
      const { event, streamSeq } = conn.pending.shift()!;
      if (conn.session && audienceIncludes(event.audience, conn.session, conn.guilds)) await this.deliverTo(conn, event, streamSeq);
    }
    if (conn.open && conn.pending) {
      conn.pending = null;
      this.catchingUp.delete(conn);
      for (const guildId of conn.guilds) addTo(this.byGuild, guildId, conn);
    }
  }

  /**
   * One event to one connection of its audience (a replay or a queued event): recorded, then
   * sent; or the connection closes.
   */
  async deliverTo(conn: GatewayConnection, event: EventEnvelope, streamSeq: number): Promise<void> {
    const batch = new Batch();
    this.plan(batch, conn, event, streamSeq);
    await this.commit(batch);
  }

  /** Routes a run of events (none of which changes the routing) and sends them with one store write. */
  private async deliverRun(run: readonly StreamEvent[]): Promise<void> {
    const batch = new Batch();
    for (const { event, streamSeq } of run) {
      for (const conn of this.targets(event)) {
        if (conn.pending) conn.pending.push({ event, streamSeq });
        else this.plan(batch, conn, event, streamSeq);
      }
    }
    await this.commit(batch);
  }

  /** The local connections of the event's audience: named users', named sessions', guild members', and all those still catching up on a guild event. */
  private targets(event: EventEnvelope): Set<GatewayConnection> {
    const targets = new Set<GatewayConnection>();
    for (const userId of event.audience.users ?? []) for (const conn of this.byUser.get(userId) ?? []) targets.add(conn);
    for (const { id, user_id: userId } of event.audience.sessions ?? [])
      for (const conn of this.byUser.get(userId) ?? []) if (conn.session?.id === id) targets.add(conn);
    if (event.audience.guilds?.length) {
      for (const guildId of event.audience.guilds) for (const conn of this.byGuild.get(guildId) ?? []) targets.add(conn);
      for (const conn of this.catchingUp) targets.add(conn);
    }
    return targets;
  }

  /** Adds the event's frame for the connection to the batch, after the frames the batch already has for it (or ends a revoked session at once). */
  private plan(batch: Batch, conn: GatewayConnection, event: EventEnvelope, streamSeq: number): void {
    const session = conn.session;
    if (!session || !conn.open) return;
    const planned = batch.outgoing.get(conn);
    const last = planned?.frames.at(-1);
    if (streamSeq <= (last?.streamSeq ?? conn.streamSeq)) return;
    const only = event.internal?.gateway_session_id;
    if (only !== undefined && only !== session.id) return;
    const moved = event.internal?.moved_to_session;
    if (event.internal?.revoked_session_ids?.includes(session.authSessionId)) {
      if (!moved) {
        conn.streamSeq = streamSeq;
        conn.ended = true;
        this.release(conn, Close.AuthenticationFailed);
        batch.ending.push(this.store.end(session.id));
        return;
      }
    } else if (event.name === AUTH_SESSION_CHANGE) {
      // It tells a connection that its own session changed: not the user's other connections.
      return;
    }
    const seq = (last?.seq ?? conn.seq) + 1;
    const membership = membershipChange(event);
    const guest = guestChange(event);
    const frame: FrameRecord = {
      seq,
      streamSeq,
      frame: framesOf(event).frame(seq),
      ...(membership ? { membership } : {}),
      ...(guest ? { guest } : {}),
      ...(moved ? { authSession: { id: moved.id, hash: moved.id_hash } } : {}),
    };
    if (planned) planned.frames.push(frame);
    else batch.outgoing.set(conn, { sessionId: session.id, owner: conn.id, frames: [frame] });
  }

  /**
   * Records the batch's frames (one round trip), then sends each connection the frames recorded
   * for it, in order. A connection whose session was resumed elsewhere closes instead. A
   * GUILD_CREATE or GUILD_DELETE changes the connection's guilds once sent.
   */
  private async commit(batch: Batch): Promise<void> {
    const conns = [...batch.outgoing.keys()];
    const written = conns.length > 0 ? await this.store.append([...batch.outgoing.values()]) : [];
    let failure: Error | undefined;
    conns.forEach((conn, i) => {
      const result = written[i] ?? new Error('the session store gave no answer');
      if (result instanceof Error) failure ??= result;
      else if (!result) {
        this.logger.info({ session_id: conn.session?.id }, 'session resumed on another connection');
        this.release(conn, Close.Superseded);
      } else this.send(conn, batch.outgoing.get(conn)!.frames);
    });
    await Promise.all(batch.ending);
    if (failure) throw failure;
  }

  private send(conn: GatewayConnection, frames: readonly FrameRecord[]): void {
    if (frames.length > 1) conn.together(() => this.sendEach(conn, frames));
    else this.sendEach(conn, frames);
  }

  private sendEach(conn: GatewayConnection, frames: readonly FrameRecord[]): void {
    for (const { seq, streamSeq, frame, membership, guest, authSession } of frames) {
      conn.seq = seq;
      conn.streamSeq = streamSeq;
      conn.send(frame);
      if (membership && conn.session) this.changeGuilds(conn, membership.op, membership.guildId);
      if (guest) conn.guestGuilds[guest.op === 'add' ? 'add' : 'delete'](guest.guildId);
      // From here on the connection stands for the new auth session (its revocation closes it).
      if (authSession && conn.session) {
        conn.session.authSessionId = authSession.id;
        conn.session.authSessionIdHash = authSession.hash;
      }
    }
  }

  private changeGuilds(conn: GatewayConnection, op: 'add' | 'remove', guildId: string): void {
    // A live connection is in the guild index; one catching up joins it with its final guilds.
    const indexed = conn.pending === null;
    if (op === 'add') {
      conn.guilds.add(guildId);
      if (indexed) addTo(this.byGuild, guildId, conn);
    } else {
      conn.guilds.delete(guildId);
      if (indexed) removeFrom(this.byGuild, guildId, conn);
    }
  }

  /** Waits for the session writes started so far (shutdown). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.writes]);
  }

  private track(write: Promise<unknown>): void {
    const p = write.catch((err: unknown) => this.logger.warn({ err }, 'session store write failed'));
    this.writes.add(p);
    void p.finally(() => this.writes.delete(p));
  }
}

/** What one store round trip records and what is sent after it. */
class Batch {
  readonly outgoing = new Map<GatewayConnection, SessionAppend>();
  /** Sessions ended by a revocation: awaited with the batch, so a failure is retried too. */
  readonly ending: Promise<void>[] = [];
}

/** Each event's frames, serialized once however many connections it goes to. */
const frames = new WeakMap<EventEnvelope, DispatchFrames>();

function framesOf(event: EventEnvelope): DispatchFrames {
  let made = frames.get(event);
  if (!made) frames.set(event, (made = new DispatchFrames(event.name, event.data ?? null)));
  return made;
}

/** The event an auth session's end or replacement is announced with. */
const AUTH_SESSION_CHANGE = 'AUTH_SESSION_CHANGE';

/** GUILD_CREATE/GUILD_DELETE move connections between guilds; a revocation closes some. */
const changesRouting = (event: EventEnvelope): boolean =>
  membershipChange(event) !== undefined || (event.internal?.revoked_session_ids?.length ?? 0) > 0;

function addTo<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(value);
}

function removeFrom<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  const set = index.get(key);
  set?.delete(value);
  if (set?.size === 0) index.delete(key);
}
