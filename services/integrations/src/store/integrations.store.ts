import { sql, type Kysely, type Transaction } from 'kysely';
import type { DomainEvent, Outbox } from '@kith/platform';
import type { IntegrationRecord, IntegrationType } from '../domain/integrations/model.js';
import type {
  GuildListCache,
  IntegrationPatch,
  IntegrationsStorePort,
  IntegrationsTx,
  NewIntegration,
} from '../domain/integrations/ports.js';
import type { IntegrationsDatabase } from './schema.js';

const COLUMNS = [
  'id',
  'guild_id',
  'channel_id',
  'type',
  'name',
  'enabled',
  'account_id',
  'account_name',
  'application_id',
  'scopes',
  'user_id',
  'syncing',
  'role_id',
  'enable_emoticons',
  'expire_behavior',
  'expire_grace_period',
  'synced_at',
  'subscriber_count',
  'revoked',
] as const;

type Row = Omit<IntegrationRecord, 'type'> & { type: string };
const toRecord = (row: Row): IntegrationRecord => ({ ...row, type: row.type as IntegrationType });

export class PgIntegrationsStore implements IntegrationsStorePort {
  constructor(
    private readonly db: Kysely<IntegrationsDatabase>,
    private readonly outbox: Outbox,
    private readonly listCache?: GuildListCache,
  ) {}

  async get(id: string): Promise<IntegrationRecord | undefined> {
    const row = await this.db.selectFrom('integrations').select(COLUMNS).where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  async listGuild(guildId: string, limit: number): Promise<IntegrationRecord[]> {
    const rows = await this.db
      .selectFrom('integrations')
      .select(COLUMNS)
      .where('guild_id', '=', guildId)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toRecord);
  }

  async listChannel(channelId: string, limit: number): Promise<IntegrationRecord[]> {
    const rows = await this.db
      .selectFrom('integrations')
      .select(COLUMNS)
      .where('channel_id', '=', channelId)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toRecord);
  }

  async applicationIdsByGuild(guildIds: string[]): Promise<Map<string, string[]>> {
    const map = new Map<string, string[]>();
    if (guildIds.length === 0) return map;
    const rows = await this.db
      .selectFrom('integrations')
      .select(['guild_id', 'application_id'])
      .where('guild_id', 'in', guildIds)
      .where('application_id', 'is not', null)
      .orderBy('guild_id')
      .orderBy('application_id')
      .execute();
    for (const row of rows) {
      const list = map.get(row.guild_id!) ?? [];
      list.push(row.application_id!);
      map.set(row.guild_id!, list);
    }
    return map;
  }

  /** After the commit, the guilds its events name have their cached lists dropped. */
  async transaction<T>(fn: (tx: IntegrationsTx) => Promise<T>): Promise<T> {
    const touched = new Set<string>();
    const result = await this.db.transaction().execute((trx) => fn(new PgIntegrationsTx(trx, this.outbox, touched)));
    await this.listCache?.invalidate([...touched]);
    return result;
  }
}

class PgIntegrationsTx implements IntegrationsTx {
  constructor(
    private readonly trx: Transaction<IntegrationsDatabase>,
    private readonly outbox: Outbox,
    private readonly touched: Set<string>,
  ) {}

  async upsertApp(integration: NewIntegration): Promise<{ integration: IntegrationRecord; created: boolean }> {
    // One app integration per guild (and per group DM): a second authorization widens its scopes.
    const target =
      integration.guild_id !== null
        ? sql`(guild_id, type, account_id) WHERE guild_id IS NOT NULL`
        : sql`(channel_id, application_id) WHERE channel_id IS NOT NULL`;
    const result = await sql<Row & { created: boolean }>`
      INSERT INTO integrations (id, guild_id, channel_id, type, name, account_id, account_name, application_id, scopes, user_id, role_id)
      VALUES (${integration.id}, ${integration.guild_id}, ${integration.channel_id}, ${integration.type}, ${integration.name},
              ${integration.account_id}, ${integration.account_name}, ${integration.application_id}, ${integration.scopes}, ${integration.user_id},
              ${integration.role_id})
      ON CONFLICT ${target} DO UPDATE
        SET scopes = ARRAY(SELECT DISTINCT s FROM unnest(integrations.scopes || excluded.scopes) AS s ORDER BY s),
            -- The bot's role is the first one made; a later authorization's is dropped by the caller.
            role_id = COALESCE(integrations.role_id, excluded.role_id)
      RETURNING ${sql.join(COLUMNS.map((c) => sql.ref(c)))}, (xmax = 0) AS created`.execute(this.trx);
    const { created, ...row } = result.rows[0]!;
    return { integration: toRecord(row), created };
  }

  async insert(integration: NewIntegration): Promise<IntegrationRecord | undefined> {
    const row = await this.trx
      .insertInto('integrations')
      .values(integration)
      .onConflict((oc) => oc.doNothing())
      .returning(COLUMNS)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async enqueueSync(id: string): Promise<void> {
    await this.trx
      .insertInto('integration_sync_jobs')
      .values({ integration_id: id })
      .onConflict((oc) => oc.column('integration_id').doNothing())
      .execute();
  }

  async lock(id: string): Promise<IntegrationRecord | undefined> {
    const row = await this.trx.selectFrom('integrations').select(COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst();
    return row && toRecord(row);
  }

  async lockGuildApps(guildId: string): Promise<IntegrationRecord[]> {
    const rows = await this.trx
      .selectFrom('integrations')
      .select(COLUMNS)
      .where('guild_id', '=', guildId)
      .where('type', '=', 'discord')
      .orderBy('id')
      .forUpdate()
      .execute();
    return rows.map(toRecord);
  }

  async update(id: string, patch: IntegrationPatch): Promise<IntegrationRecord> {
    return toRecord(
      await this.trx.updateTable('integrations').set(patch).where('id', '=', id).returning(COLUMNS).executeTakeFirstOrThrow(),
    );
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.trx.deleteFrom('integrations').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async emit(events: DomainEvent[]): Promise<void> {
    for (const event of events) for (const guildId of event.audience.guilds ?? []) this.touched.add(guildId);
    await this.outbox.enqueue(this.trx, events);
  }
}
