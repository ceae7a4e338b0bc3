import { eventSubject, type EventEnvelope, type Logger, type ServiceParts } from '@kith/platform';
import type { UserCache } from '../domain/user-cache.js';

type Nats = ServiceParts<unknown>['nats'];

/** Auth publishes every change of a user here, the user object in `data`. */
export const USER_UPDATE_SUBJECT = eventSubject('auth', 'USER_UPDATE');

/**
 * Drops cached users as auth announces their changes. A core subscription, not a JetStream
 * consumer: every replica needs every message (each has its own cache), and nothing is to be
 * replayed on a start, when the cache is empty anyway. What core NATS may lose is a message while
 * disconnected; a reconnect therefore clears the whole cache, and the cache's TTL covers the rest.
 */
export function followUserUpdates(nats: Nats, users: UserCache, logger: Logger): { close(): void } {
  const subscription = nats.subscribe(USER_UPDATE_SUBJECT, {
    callback: (err, msg) => {
      if (err) return logger.warn({ err }, 'USER_UPDATE subscription error');
      const id = updatedUserId(msg.data);
      if (id) users.invalidate(id);
      else logger.warn({ subject: msg.subject }, 'USER_UPDATE without a user id');
    },
  });
  void (async () => {
    for await (const status of nats.status()) if (status.type === 'reconnect') users.clear();
  })();
  return { close: () => subscription.unsubscribe() };
}

/** The id of the user a USER_UPDATE envelope announces; undefined for anything else. */
export function updatedUserId(data: Uint8Array): string | undefined {
  try {
    const envelope = JSON.parse(new TextDecoder().decode(data)) as Partial<EventEnvelope<{ id?: unknown }>>;
    const id = envelope.data?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
