import { sql, type Kysely } from 'kysely';
import type { ApplicationRecord, CommandRecord } from '../domain/integrations/model.js';
import type { ApplicationPatch, ApplicationsStorePort, NewApplication, NewCommand } from '../domain/integrations/ports.js';
import type { IntegrationsDatabase } from './schema.js';

const APPLICATION_COLUMNS = [
  'id',
  'owner_id',
  'name',
  'description',
  'icon',
  'flags',
  'bot_user_id',
  'bot_public',
  'bot_require_code_grant',
  'redirect_uris',
  'role_connections_verification_url',
  'verify_key',
] as const;

const toCommand = (row: Omit<CommandRecord, 'options'> & { options: unknown }): CommandRecord => ({
  ...row,
  options: Array.isArray(row.options) ? row.options : [],
});

export class PgApplicationsStore implements ApplicationsStorePort {
  constructor(private readonly db: Kysely<IntegrationsDatabase>) {}

  insert(app: NewApplication): Promise<ApplicationRecord> {
    return this.db.insertInto('applications').values(app).returning(APPLICATION_COLUMNS).executeTakeFirstOrThrow();
  }

  get(id: string): Promise<ApplicationRecord | undefined> {
    return this.db.selectFrom('applications').select(APPLICATION_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  many(ids: string[]): Promise<ApplicationRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('applications').select(APPLICATION_COLUMNS).where('id', 'in', ids).execute();
  }

  ownedBy(ownerId: string): Promise<ApplicationRecord[]> {
    return this.db.selectFrom('applications').select(APPLICATION_COLUMNS).where('owner_id', '=', ownerId).orderBy('id').execute();
  }

  async update(id: string, patch: ApplicationPatch): Promise<ApplicationRecord | undefined> {
    if (Object.keys(patch).length === 0) return this.get(id);
    return this.db.updateTable('applications').set(patch).where('id', '=', id).returning(APPLICATION_COLUMNS).executeTakeFirst();
  }

  async commands(applicationId: string, guildId: string | null): Promise<CommandRecord[]> {
    const rows = await this.db
      .selectFrom('application_commands')
      .selectAll()
      .where('application_id', '=', applicationId)
      .where((eb) => (guildId === null ? eb('guild_id', 'is', null) : eb('guild_id', '=', guildId)))
      .orderBy('id')
      .execute();
    return rows.map(toCommand);
  }

  async upsertCommand(command: NewCommand): Promise<CommandRecord> {
    const options = JSON.stringify(command.options);
    const row = await this.db
      .insertInto('application_commands')
      .values({ ...command, options })
      .onConflict((oc) => oc.column('id').doUpdateSet({ description: command.description, options, version: command.version }))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toCommand(row);
  }

  async deleteCommand(applicationId: string, commandId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('application_commands')
      .where('application_id', '=', applicationId)
      .where('id', '=', commandId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async withCommands(applicationIds: string[], guildId: string): Promise<Set<string>> {
    if (applicationIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('application_commands')
      .select('application_id')
      .distinct()
      .where('application_id', 'in', applicationIds)
      .where((eb) => eb.or([eb('guild_id', 'is', null), eb('guild_id', '=', guildId)]))
      .execute();
    return new Set(rows.map((r) => r.application_id));
  }

  async roleConnectionMetadata(applicationIds: string[]): Promise<Map<string, unknown[]>> {
    if (applicationIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('role_connection_metadata')
      .select(['application_id', 'records'])
      .where('application_id', 'in', applicationIds)
      .execute();
    return new Map(rows.map((r) => [r.application_id, Array.isArray(r.records) ? r.records : []]));
  }

  async setRoleConnectionMetadata(applicationId: string, records: unknown[]): Promise<void> {
    const json = JSON.stringify(records);
    await this.db
      .insertInto('role_connection_metadata')
      .values({ application_id: applicationId, records: json })
      .onConflict((oc) => oc.column('application_id').doUpdateSet({ records: json }))
      .execute();
  }

  async saveIcon(applicationId: string, icon: { hash: string; contentType: string; data: Buffer }): Promise<void> {
    await this.db
      .insertInto('application_icons')
      .values({ application_id: applicationId, hash: icon.hash, content_type: icon.contentType, data: icon.data })
      .onConflict((oc) => oc.columns(['application_id', 'hash']).doNothing())
      .execute();
  }

  async icon(applicationId: string, hash: string): Promise<{ contentType: string; data: Buffer } | undefined> {
    const row = await this.db
      .selectFrom('application_icons')
      .select(['content_type', 'data'])
      .where('application_id', '=', applicationId)
      .where('hash', '=', hash)
      .executeTakeFirst();
    return row && { contentType: row.content_type, data: row.data };
  }

  async authorizedScopes(userId: string, applicationId: string): Promise<string[]> {
    const row = await this.db
      .selectFrom('oauth2_authorizations')
      .select('scopes')
      .where('user_id', '=', userId)
      .where('application_id', '=', applicationId)
      .executeTakeFirst();
    return row?.scopes ?? [];
  }

  async recordAuthorization(id: string, userId: string, applicationId: string, scopes: string[]): Promise<void> {
    await this.db
      .insertInto('oauth2_authorizations')
      .values({ id, user_id: userId, application_id: applicationId, scopes })
      .onConflict((oc) =>
        oc.columns(['user_id', 'application_id']).doUpdateSet({
          scopes: sql<string[]>`ARRAY(SELECT DISTINCT unnest(oauth2_authorizations.scopes || excluded.scopes) ORDER BY 1)`,
        }),
      )
      .execute();
  }
}
