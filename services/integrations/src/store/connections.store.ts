import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Redis } from '@kith/platform';
import type { Connection, ConnectionsPort, ConnectionStates, ProviderTokens } from '../domain/streaming/ports.js';
import type { TokenSealer } from './sealing.js';
import type { IntegrationsDatabase } from './schema.js';

const COLUMNS = [
  'user_id',
  'type',
  'account_id',
  'name',
  'access_token',
  'revoked',
  'visibility',
  'friend_sync',
  'show_activity',
  'metadata_visibility',
] as const;

export class PgConnections implements ConnectionsPort {
  constructor(
    private readonly db: Kysely<IntegrationsDatabase>,
    private readonly sealer: TokenSealer,
  ) {}

  private open = (row: Connection): Connection => ({ ...row, access_token: row.access_token ? this.sealer.open(row.access_token) : null });

  async upsert(c: Parameters<ConnectionsPort['upsert']>[0]): Promise<Connection> {
    const sealed = {
      access_token: c.access_token ? this.sealer.seal(c.access_token) : null,
      refresh_token: c.refresh_token ? this.sealer.seal(c.refresh_token) : null,
      token_expires_at: c.token_expires_at,
    };
    // One Kith user per provider account: connecting it again moves it to whoever connected last.
    const row = await this.db
      .insertInto('connections')
      .values({ user_id: c.user_id, type: c.type, account_id: c.account_id, name: c.name, ...sealed })
      .onConflict((oc) => oc.columns(['type', 'account_id']).doUpdateSet({ user_id: c.user_id, name: c.name, revoked: false, ...sealed }))
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
    return this.open(row);
  }

  async refreshState(type: string, accountId: string) {
    const row = await this.db
      .selectFrom('connections')
      .select(['refresh_token', 'token_expires_at'])
      .where('type', '=', type)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!row) return undefined;
    return { refreshToken: row.refresh_token ? this.sealer.open(row.refresh_token) : null, expiresAt: row.token_expires_at };
  }

  async replaceTokens(type: string, accountId: string, tokens: ProviderTokens): Promise<void> {
    await this.db
      .updateTable('connections')
      .set({
        access_token: this.sealer.seal(tokens.accessToken),
        // A provider that answers no new refresh token keeps the old one valid.
        ...(tokens.refreshToken ? { refresh_token: this.sealer.seal(tokens.refreshToken) } : {}),
        token_expires_at: tokens.expiresAt,
        revoked: false,
      })
      .where('type', '=', type)
      .where('account_id', '=', accountId)
      .execute();
  }

  async ofUser(userId: string): Promise<Connection[]> {
    const rows = await this.db.selectFrom('connections').select(COLUMNS).where('user_id', '=', userId).orderBy('created_at').execute();
    return rows.map(this.open);
  }

  async get(userId: string, type: string, accountId: string): Promise<Connection | undefined> {
    const row = await this.db
      .selectFrom('connections')
      .select(COLUMNS)
      .where('user_id', '=', userId)
      .where('type', '=', type)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row && this.open(row);
  }

  async byAccount(type: string, accountId: string): Promise<Connection | undefined> {
    const row = await this.db
      .selectFrom('connections')
      .select(COLUMNS)
      .where('type', '=', type)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row && this.open(row);
  }

  async usersOf(type: string, accountIds: string[]): Promise<Map<string, string>> {
    if (accountIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('connections')
      .select(['account_id', 'user_id'])
      .where('type', '=', type)
      .where('account_id', 'in', accountIds)
      .where('revoked', '=', false)
      .execute();
    return new Map(rows.map((r) => [r.account_id, r.user_id]));
  }

  async markRevoked(type: string, accountId: string): Promise<void> {
    await this.db.updateTable('connections').set({ revoked: true }).where('type', '=', type).where('account_id', '=', accountId).execute();
  }

  async delete(userId: string, type: string, accountId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('connections')
      .where('user_id', '=', userId)
      .where('type', '=', type)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

const STATE_TTL_SECONDS = 600;

/** OAuth2 states in Redis: 128 random bits, bound to the user and platform, used once. */
export class RedisConnectionStates implements ConnectionStates {
  constructor(private readonly redis: Redis) {}

  async issue(userId: string, type: string): Promise<string> {
    const state = randomBytes(16).toString('base64url');
    await this.redis.set(`connection-state:${state}`, `${userId}:${type}`, 'EX', STATE_TTL_SECONDS);
    return state;
  }

  async consume(userId: string, type: string, state: string): Promise<boolean> {
    if (!/^[\w-]{22}$/.test(state)) return false;
    const held = await this.redis.getdel(`connection-state:${state}`);
    if (held === null) return false;
    const expected = Buffer.from(`${userId}:${type}`);
    const given = Buffer.from(held);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
