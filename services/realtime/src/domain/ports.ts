import type { EventEnvelope } from '@kith/platform';
import type { MembershipChange } from './membership.js';

/** What auth says of an Identify or Resume token. */
export interface TokenOwner {
  userId: string;
  authSessionId: string;
  /** The hash clients know the auth session by (`id_hash` in /auth/sessions). */
  authSessionIdHash: string;
  bot: boolean;
}

/** The user's own object as READY carries it, and the settings READY carries beside it. */
export interface CurrentUser {
  user: { id: string } & Record<string, unknown>;
  settings: { locale: string; theme: string };
}

export interface AuthPort {
  /** The session behind a token, or null when auth does not know it (unknown, expired, revoked). */
  validate(token: string, clientIp: string): Promise<TokenOwner | null>;
  currentUser(userId: string): Promise<CurrentUser>;
}

/** A gateway session as stored for resuming: whose it is and how far it got. */
export interface NewSession {
  userId: string;
  authSessionId: string;
  authSessionIdHash: string;
  /** The connection that may write to the session; another connection resuming it takes it over. */
  owner: string;
  /** Every event of the stream up to here is either in the session's frames or not the session's. */
  streamSeq: number;
  /** The user's guilds at `streamSeq`: a resume checks guild audiences against them. */
  guildIds: string[];
  /** Identify's intents (what op 8 gives a bot), kept for the connections that resume the session. */
  intents?: number;
}

export type ClaimResult =
  /** `intents`: those the session was identified with (what op 8 gives a bot). */
  | { status: 'ok'; seq: number; streamSeq: number; frames: string[]; guildIds: string[]; intents: number }
  /** Unknown or expired; another user's; or a `seq` the kept frames cannot continue from. */
  | { status: 'missing' | 'user' | 'seq' };

export interface ClaimRequest {
  userId: string;
  /** The last sequence number the client saw. */
  clientSeq: number;
  owner: string;
  authSessionId: string;
  authSessionIdHash: string;
}

/** A frame to record as sent with `seq` for the event at `streamSeq`, with the change to the session's guilds it makes. */
export interface FrameRecord {
  seq: number;
  streamSeq: number;
  frame: string;
  membership?: MembershipChange;
  /** A guest's access begun or ended with this frame (not stored: it ends when the connection does). */
  guest?: MembershipChange;
  /** The auth session the connection stands for once the frame is sent (not stored: a resume names its own). */
  authSession?: { id: string; hash: string };
}

/** Frames for one session, oldest first, written by the connection `owner`. */
export interface SessionAppend {
  sessionId: string;
  owner: string;
  frames: FrameRecord[];
}

/** Where sessions live between connections (any replica reads any session). */
export interface SessionStorePort {
  /** A new session whose first frame (READY) has sequence number 1. */
  create(sessionId: string, session: NewSession, firstFrame: string): Promise<void>;
  /**
   * Records, for each session, its frames and the changes to its guilds they make, in one write
   * per session (all or nothing) and one round trip for all. Per session, in order: true when
   * written, false when `owner` no longer owns it, or the error that kept it from being written.
   */
  append(writes: SessionAppend[]): Promise<(boolean | Error)[]>;
  /** Keeps the session for another resume window and records how far in the stream it is; false when not the owner. */
  touch(sessionId: string, owner: string, streamSeq: number): Promise<boolean>;
  /** Makes `owner` the session's connection and returns the frames after the client's `seq`. */
  claim(sessionId: string, request: ClaimRequest): Promise<ClaimResult>;
  /** Forgets the session: it can no longer be resumed. With `owner`, only while that connection owns it. */
  end(sessionId: string, owner?: string): Promise<void>;
}

/** The event stream itself, read from any position still retained. */
export interface EventLogPort {
  /** First and last sequence numbers the stream holds now (last 0 when it never held any). */
  bounds(): Promise<{ first: number; last: number }>;
  /** Calls `each` for every event with a sequence number in [from, to], in order. */
  read(from: number, to: number, each: (event: EventEnvelope, streamSeq: number) => Promise<void>): Promise<void>;
}

/** An event of the stream and its position there. */
export interface StreamEvent {
  event: EventEnvelope;
  streamSeq: number;
}

/**
 * Tells the first stream message of each event from the copies a relay published again after the
 * stream's duplicate window: one event, one dispatch, whatever the outage.
 */
export interface EventCopiesPort {
  /** The events, in order, without those whose id an earlier stream position already carried. */
  firstCopies(events: readonly StreamEvent[]): Promise<StreamEvent[]>;
}

/** How far this replica's own consumer has got in the stream. */
export interface StreamPosition {
  /** The event being dispatched now, or the last one dispatched: a session attached now starts after it. */
  current(): number;
  /** The last event whose dispatch to every local socket has finished. */
  processed(): number;
}

/** The social graph's relationship objects, rendered as the HTTP API renders them. */
export interface SocialPort {
  relationships(userId: string): Promise<unknown[]>;
}

/** What READY carries from the guilds service, rendered as the HTTP API renders them. */
export interface ReadyGuilds {
  guilds: unknown[];
  privateChannels: unknown[];
  guildIds: string[];
}

/** Request Guild Members (op 8) as guilds answers it: members rendered as the HTTP API renders them. */
export interface MemberSearchRequest {
  guildId: string;
  requesterId: string;
  query: string;
  userIds: string[];
  limit: number;
  after: string;
  privileged: boolean;
}

export interface FoundMembers {
  members: ({ user: { id: string } } & Record<string, unknown>)[];
  notFound: string[];
}

export interface GuildsPort {
  readyState(userId: string): Promise<ReadyGuilds>;
  /** Throws the platform's error when the requester may not see them. */
  searchMembers(request: MemberSearchRequest): Promise<FoundMembers>;
}

/**
 * Who is connected, across every replica. When a user's last connection closes, this is announced
 * (SESSIONS_ENDED), and memberships that last only while connected (temporary invites) end on it.
 */
export interface ConnectionCountsPort {
  online(userId: string): Promise<void>;
  offline(userId: string): Promise<void>;
  /** A connection holding guest access to guilds closed: announced (GUEST_SESSION_ENDED) so the access ends. */
  guestLeft(userId: string, sessionId: string, guildIds: readonly string[]): Promise<void>;
}

/** A user's presence as others see it (invisible shows as offline). */
export interface Presence {
  status: 'online' | 'idle' | 'dnd' | 'offline';
  activities: unknown[];
}

/**
 * Where a user's presence is kept and who hears of its changes (their friends and guild members).
 * A user is present while one of their gateway connections is, or was dropped less than a resume
 * window ago (its session can still be resumed, as on the platform): the first makes them appear
 * as they asked, the end of the last makes them appear offline.
 */
export interface PresencePort {
  update(userId: string, presence: Presence, guildIds: readonly string[]): Promise<void>;
  /**
   * A connection of the user is ready (identified or resumed). The user's first one makes them
   * present as `requested` (Identify's presence), or as they last were, or online.
   * A later one changes their presence only when it names one. `friendIds`, when the caller has
   * just read them, spare reading them again.
   */
  connected(
    userId: string,
    connectionId: string,
    requested: Presence | undefined,
    guildIds: readonly string[],
    friendIds?: readonly string[],
  ): Promise<void>;
  /**
   * A connection of the user is gone. `resumable`: its session can still be resumed, so the user
   * stays present until the resume window has passed without it coming back; otherwise (the
   * client closed with 1000 or 1001, or the session was revoked) it counts no more at once.
   * Once none counts, the user's friends and guild members see them offline.
   */
  disconnected(userId: string, connectionId: string, resumable: boolean, guildIds: readonly string[]): Promise<void>;
}

/** A presence as READY, PRESENCE_UPDATE and GUILD_MEMBERS_CHUNK carry it. */
export interface PresenceView {
  user: { id: string };
  status: string;
  activities: unknown[];
  client_status: Record<string, string>;
}

/** The presences of those of the users who are connected and not shown offline, in the order asked. */
export interface PresenceReader {
  presences(userIds: readonly string[]): Promise<PresenceView[]>;
}

/** Dispatches sent to one gateway session through the event stream (numbered, kept for resuming). */
export interface SessionReplies {
  send(session: { id: string; userId: string }, name: string, data: unknown): Promise<void>;
}
