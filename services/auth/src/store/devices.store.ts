import { sql, type Kysely, type Transaction } from 'kysely';
import type { DevicesPort, PushDevice, PushRegistration, PushToken } from '../domain/devices.service.js';
import type { AuthDatabase } from './schema.js';

/** Push tokens (migration 0011): rows of live sessions only, the session's end deletes them (trigger). */
export class PgDevices implements DevicesPort {
  constructor(private readonly db: Kysely<AuthDatabase>) {}

  async register(userId: string, sessionId: string, registrations: PushRegistration[]): Promise<boolean> {
    if (registrations.length === 0) return true;
    return this.db.transaction().execute(async (trx) => {
      // The session row is share-locked: a logout committing meanwhile either finishes first (and
      // the session no longer qualifies) or waits, and its trigger then deletes what was written.
      const live = await trx
        .selectFrom('sessions')
        .select('id')
        .where('id', '=', sessionId)
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .forShare()
        .executeTakeFirst();
      if (!live) return false;
      await trx
        .insertInto('push_devices')
        .values(
          registrations.map((r) => ({
            provider: r.provider,
            token: r.token,
            session_id: sessionId,
            user_id: userId,
            bundle_id: r.bundleId,
            bypass_server_throttling: r.bypassServerThrottling,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['provider', 'token']).doUpdateSet((eb) => ({
            session_id: eb.ref('excluded.session_id'),
            user_id: eb.ref('excluded.user_id'),
            bundle_id: eb.ref('excluded.bundle_id'),
            bypass_server_throttling: eb.ref('excluded.bypass_server_throttling'),
            created_at: sql<Date>`now()`,
          })),
        )
        .execute();
      return true;
    });
  }

  async unregister(userId: string, tokens: PushToken[], db: Kysely<AuthDatabase> | Transaction<AuthDatabase> = this.db): Promise<void> {
    if (tokens.length === 0) return;
    await db
      .deleteFrom('push_devices')
      .where('user_id', '=', userId)
      .where((eb) => eb.or(tokens.map((t) => eb.and([eb('provider', '=', t.provider), eb('token', '=', t.token)]))))
      .execute();
  }

  async listLive(userId: string): Promise<PushDevice[]> {
    const rows = await this.db
      .selectFrom('push_devices as d')
      .innerJoin('sessions as s', 's.id', 'd.session_id')
      .select(['d.provider', 'd.token', 'd.session_id', 'd.bundle_id'])
      .where('d.user_id', '=', userId)
      .where('s.revoked_at', 'is', null)
      .where('s.expires_at', '>', sql<Date>`now()`)
      .orderBy('d.created_at')
      .execute();
    return rows.map((r) => ({ provider: r.provider, token: r.token, sessionId: r.session_id, bundleId: r.bundle_id }));
  }
}
