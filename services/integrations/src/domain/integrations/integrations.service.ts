import { ApiError, type Logger } from '@kith/platform';
import { guildIntegrationsUpdate, integrationChanged, integrationDeleted } from './integration.events.js';
import { integrationView, namedUserIds, type ViewContext } from './integration.view.js';
import { MANAGE_GUILD, MAX_LISTED, type ApplicationRecord, type IntegrationRecord } from './model.js';
import type { ApplicationsStorePort, GuildListCache, GuildsPort, IntegrationsStorePort, UsersPort, WebhooksPort } from './ports.js';

export interface ListOptions {
  hasCommands: boolean;
  includeRoleConnectionsMetadata: boolean;
}

/**
 * A guild's integrations as its managers see them (MANAGE_GUILD, asked of guilds): listing,
 * removal, the command-scope migration, and the map of applications over a user's guilds.
 */
export class IntegrationsService {
  constructor(
    private readonly store: IntegrationsStorePort,
    private readonly applications: ApplicationsStorePort,
    private readonly guilds: GuildsPort,
    private readonly users: UsersPort,
    private readonly webhooks: WebhooksPort | undefined,
    private readonly logger: Logger,
    private readonly listCache?: GuildListCache,
  ) {}

  /** 10004 when not a member (the guild is not theirs to know), 50013 without MANAGE_GUILD. */
  async requireManageGuild(userId: string, guildId: string): Promise<void> {
    const check = await this.guilds.permissions(userId, guildId, MANAGE_GUILD);
    if (!check.member) throw ApiError.of('UNKNOWN_GUILD');
    if (!check.allowed) throw ApiError.of('MISSING_PERMISSIONS');
  }

  /** The guild's integrations as JSON text: rendered once per change of the guild's integrations (listCache). */
  async listJson(userId: string, guildId: string, options: ListOptions): Promise<string> {
    await this.requireManageGuild(userId, guildId);
    const variant = `${Number(options.hasCommands)}${Number(options.includeRoleConnectionsMetadata)}`;
    const cached = await this.listCache?.read(guildId, variant);
    if (cached?.body !== undefined) return cached.body;
    const body = JSON.stringify(await this.render(guildId, options));
    if (cached) await this.listCache!.write(guildId, variant, cached.version, body);
    return body;
  }

  private async render(guildId: string, options: ListOptions): Promise<Record<string, unknown>[]> {
    let rows = await this.store.listGuild(guildId, MAX_LISTED);
    const appIds = [...new Set(rows.flatMap((r) => (r.application_id ? [r.application_id] : [])))];
    if (options.hasCommands) {
      const withCommands = await this.applications.withCommands(appIds, guildId);
      rows = rows.filter((r) => r.type === 'discord' && r.application_id !== null && withCommands.has(r.application_id));
    }
    const ctx = await this.context(rows, true, options.includeRoleConnectionsMetadata);
    return rows.map((row) => integrationView(row, ctx));
  }

  /**
   * Removes the integration: its bot leaves the guild and its webhooks go first (both can be done
   * again), then the row and its events commit together; a failure before that changes nothing
   * the retry cannot finish.
   */
  async delete(userId: string, guildId: string, integrationId: string): Promise<void> {
    await this.requireManageGuild(userId, guildId);
    const row = await this.store.get(integrationId);
    if (!row || row.guild_id !== guildId) throw ApiError.of('UNKNOWN_INTEGRATION');
    const app = row.application_id ? await this.applications.get(row.application_id) : undefined;
    if (app?.bot_user_id && row.scopes.includes('bot')) await this.guilds.removeMember(guildId, app.bot_user_id);
    if (this.webhooks) await this.webhooks.deleteIntegrationWebhooks(guildId, row.id, row.application_id);
    // A Twitch integration's emotes go with it (GUILD_EMOJIS_UPDATE from guilds when it had any).
    if (row.type === 'twitch') await this.guilds.syncManagedEmojis(guildId, row.id, []);
    // A streaming integration's subscriber role goes with it (members lose it: GUILD_MEMBER_UPDATEs from guilds).
    if (row.role_id) await this.guilds.deleteManagedRole(guildId, row.role_id);
    await this.store.transaction(async (tx) => {
      if (!(await tx.delete(row.id))) throw ApiError.of('UNKNOWN_INTEGRATION');
      await tx.emit([guildIntegrationsUpdate(guildId), integrationDeleted(row)]);
    });
    this.logger.info({ guildId, integrationId: row.id, type: row.type }, 'integration deleted');
  }

  /** Every app integration of the guild gets applications.commands; answers those whose application has commands. */
  async migrateCommandScope(userId: string, guildId: string): Promise<{ integration_ids_with_app_commands: string[] }> {
    await this.requireManageGuild(userId, guildId);
    const migrated = await this.store.transaction(async (tx) => {
      const rows = await tx.lockGuildApps(guildId);
      const changed: IntegrationRecord[] = [];
      for (const row of rows) {
        if (row.scopes.includes('applications.commands')) continue;
        changed.push(await tx.update(row.id, { scopes: [...row.scopes, 'applications.commands'] }));
      }
      if (changed.length > 0) {
        const ctx = await this.context(changed, false, false);
        await tx.emit([
          guildIntegrationsUpdate(guildId),
          ...changed.map((row) => integrationChanged('INTEGRATION_UPDATE', guildId, integrationView(row, ctx))),
        ]);
      }
      return rows;
    });
    const appIds = migrated.flatMap((r) => (r.application_id ? [r.application_id] : []));
    const withCommands = await this.applications.withCommands(appIds, guildId);
    return {
      integration_ids_with_app_commands: migrated.filter((r) => r.application_id && withCommands.has(r.application_id)).map((r) => r.id),
    };
  }

  /** Guild id → the applications of its integrations, over every guild the user is in. */
  async applicationIds(userId: string): Promise<Record<string, string[]>> {
    const guildIds = await this.guilds.guildIdsOf(userId);
    const map = await this.store.applicationIdsByGuild(guildIds);
    return Object.fromEntries(guildIds.map((id) => [id, map.get(id) ?? []]));
  }

  /** What renderings of these rows need, in one read of each kind. */
  async context(
    rows: Pick<IntegrationRecord, 'application_id' | 'user_id'>[],
    withUser: boolean,
    withRoleConnections: boolean,
  ): Promise<ViewContext> {
    const appIds = [...new Set(rows.flatMap((r) => (r.application_id ? [r.application_id] : [])))];
    const apps = new Map<string, ApplicationRecord>((await this.applications.many(appIds)).map((a) => [a.id, a]));
    const [users, roleConnections] = await Promise.all([
      this.users.users(namedUserIds(rows, apps, withUser)),
      withRoleConnections ? this.applications.roleConnectionMetadata(appIds) : Promise.resolve(undefined),
    ]);
    return { applications: apps, users, withUser, ...(roleConnections ? { roleConnections } : {}) };
  }
}
