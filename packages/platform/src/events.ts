/**
 * The event pipeline's contract: services write envelopes into their outbox in the same
 * transaction as the change; a relay publishes them to JetStream; realtime dispatches them.
 */

/** The one stream every domain event goes to. */
export const EVENTS_STREAM = 'EVENTS';
/** Every subject of the stream: `events.<service>.<EVENT_NAME>`. */
export const EVENTS_SUBJECTS = 'events.>';

export const eventSubject = (service: string, name: string): string => `events.${service}.${name}`;

/** Who an event concerns. Users now; guild and channel audiences are resolved by realtime later. */
export interface Audience {
  users?: string[];
  guilds?: string[];
  channels?: string[];
  /**
   * Single gateway sessions of a user (a guest invite's access is one session's): only that
   * session's connection gets the event, none of the user's others. A GUILD_CREATE or GUILD_DELETE
   * sent this way does not make the session a member of the guild: it hears nothing else of it.
   */
  sessions?: SessionAudience[];
}

export interface SessionAudience {
  id: string;
  user_id: string;
}

/** What a service hands to the outbox. `name` is the dispatch name clients see (`RELATIONSHIP_ADD`). */
export interface DomainEvent<T = unknown> {
  name: string;
  audience: Audience;
  /** The dispatch payload, exactly as clients receive it in `d`. */
  data: T;
  /** Facts realtime (or the edge) acts on but never forwards to clients. */
  internal?: EventInternal;
}

export interface EventInternal {
  /** Auth sessions that ended: their sockets close with 4004 and their tokens stop at the edge. */
  revoked_session_ids?: string[];
  /**
   * The session the (one) revoked session's holder goes on with, as after a password change: its
   * sockets are kept open and moved to it, and they alone get the event (AUTH_SESSION_CHANGE).
   */
  moved_to_session?: { id: string; id_hash: string };
  /**
   * Only this gateway session gets the event: a reply to what its connection asked for (op 8's
   * GUILD_MEMBERS_CHUNK), numbered and kept for resuming like any other dispatch.
   */
  gateway_session_id?: string;
}

/** The message body on the stream. Its `id` is also the `Nats-Msg-Id` header, so duplicates drop. */
export interface EventEnvelope<T = unknown> extends DomainEvent<T> {
  id: string;
  /** The producing service. */
  service: string;
  /** ISO 8601. */
  occurred_at: string;
}
