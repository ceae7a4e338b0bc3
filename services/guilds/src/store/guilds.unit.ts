import type { Outbox } from '@kith/platform';
import type { GuildsStore, GuildsTx, GuildsUnit } from '../domain/ports.js';
import type { PgAccess } from './access.store.js';
import { PgChannels } from './channel.store.js';
import { PgDms } from './dm.store.js';
import { PgEmojis } from './emojis.store.js';
import { PgGuilds, type Db, type Tx } from './guilds.store.js';
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

/** One transaction's repositories; its events go to the outbox in the same transaction. */
function txOf(trx: Tx, access: PgAccess, outbox: Outbox): GuildsTx {
  return {
    ...unitOf(trx, access),
    emit: async (events) => {
      await outbox.enqueue(trx, events);
    },
  };
}

/** The guilds service's PostgreSQL: repositories outside a transaction, and transactions whose events commit with them. */
export function pgGuildsStore(db: Db, access: PgAccess, outbox: Outbox): GuildsStore {
  return {
    ...unitOf(db, access),
    transaction: (fn) => db.transaction().execute((trx) => fn(txOf(trx, access, outbox))),
  };
}
