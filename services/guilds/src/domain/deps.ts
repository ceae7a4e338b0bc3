import type { Kysely, Logger, Outbox, ServiceClient, SnowflakeGenerator } from '@kith/platform';
import type { AuthService } from '@kith/proto/auth/v1/auth';
import type { PgAccess } from '../store/access.store.js';
import type { GuildsDatabase } from '../store/schema.js';

/** What every part of the guilds service is built from (app.ts wires it once). */
export interface GuildsDeps {
  db: Kysely<GuildsDatabase>;
  outbox: Outbox;
  ids: SnowflakeGenerator;
  access: PgAccess;
  /** Users (for member and recipient objects) come from auth. */
  auth: ServiceClient<typeof AuthService>;
  logger: Logger;
}
