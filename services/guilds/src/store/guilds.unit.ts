import { sql, type DomainEvent, type Outbox } from '@kith/platform';
import type { GuildsStore, GuildsTx, GuildsUnit } from '../domain/ports.js';
import type { PgAccess } from './access.store.js';
import { PgChannels } from './channel.store.js';
import { PgDms } from './dm.store.js';
import { PgEmojis } from './emojis.store.js';
import { PgGuilds, type Db } from './guilds.store.js';
import { PgMembers } from './members.store.js';
import { PgRoles } from './roles.store.js';
import { PgGuests } from './guests.store.js';
import { PgVerification } from './verification.store.js';

/** Every repository over one database handle: the pool's, or a transaction's. */
function unitOf(db: Db, access: PgAccess): GuildsUnit {
  return {
    emojis: new PgEmojis(db),
    guilds: new PgGuilds(db),
    roles: new PgRoles(db),
    members: new PgMembers(db),
    channels: new PgChannels(db),
    dms: new PgDms(db),
    verification: new PgVerification(db),
    guests: new PgGuests(db),
    access: access.reader(db),
  };
}

/**
 * One transaction on one connection: its repositories, and the events it emits, held until it ends
 * and then written to the outbox together with COMMIT in one message (one round trip fewer per
 * change; the outbox's rows still come after every write they describe, in emit order).
 */
async function inTransaction<T>(conn: Db, access: PgAccess, outbox: Outbox, fn: (tx: GuildsTx) => Promise<T>): Promise<T> {
  await sql.raw('BEGIN').execute(conn);
  const held: DomainEvent[] = [];
  const tx: GuildsTx = {
    ...unitOf(conn, access),
    emit: async (events) => {
      held.push(...events);
    },
  };
  try {
    const result = await fn(tx);
    await outbox.commitWith(conn, held);
    return result;
  } catch (err) {
    // After a failed COMMIT there is no transaction left, and ROLLBACK only warns.
    await sql
      .raw('ROLLBACK')
      .execute(conn)
      .catch(() => undefined);
    throw err;
  }
}

/** The guilds service's PostgreSQL: repositories outside a transaction, and transactions whose events commit with them. */
export function pgGuildsStore(db: Db, access: PgAccess, outbox: Outbox): GuildsStore {
  return {
    ...unitOf(db, access),
    transaction: (fn) => db.connection().execute((conn) => inTransaction(conn, access, outbox, fn)),
  };
}
