import { ApiError } from '@kith/platform';
import { ProviderError } from '../provider.error.js';
import { guildIntegrationsUpdate, integrationChanged } from '../integrations/integration.events.js';
import { integrationView } from '../integrations/integration.view.js';
import type { IntegrationsService } from '../integrations/integrations.service.js';
import type { IntegrationRecord, StreamingType } from '../integrations/model.js';
import type { GuildsPort, IdSource, IntegrationPatch, IntegrationsStorePort, IntegrationsTx } from '../integrations/ports.js';
import { joinError } from '../integrations/join-error.js';
import { providerOf, type ConnectionsPort, type RefreshState, type StreamingAccount, type StreamingProvider } from './ports.js';

export interface Grant {
  user_id: string;
  account_id: string;
}

export interface StreamingStorePort {
  syncSubscribers(integrationId: string, current: StreamingAccount[]): Promise<void>;
  /** Subscribers missing since a past sync: account id → when first missed. */
  lapsed(integrationId: string): Promise<Map<string, Date>>;
  /** The first of these accounts that subscribes now. */
  isCurrentSubscriber(integrationId: string, accountIds: string[]): Promise<string | undefined>;
  grants(integrationId: string): Promise<Grant[]>;
  addGrant(integrationId: string, userId: string, accountId: string): Promise<void>;
  removeGrant(integrationId: string, userId: string): Promise<void>;
}

export interface StreamingSettings {
  expire_behavior?: number | undefined;
  expire_grace_period?: number | undefined;
  enable_emoticons?: boolean | undefined;
}

const DAY_MS = 86_400_000;

/** The provider refused the token (expired or revoked). */
const refused = (err: unknown): boolean =>
  err instanceof ProviderError && err.kind === 'bad_response' && (err.status === 401 || err.status === 403);

const isStreaming = (row: IntegrationRecord | undefined): row is IntegrationRecord & { type: StreamingType } =>
  row?.type === 'twitch' || row?.type === 'youtube';

/**
 * Streaming integrations: a guild manager's connected Twitch or YouTube account, whose
 * subscribers (channel members) get a managed role in the guild; a sync reads them from the
 * provider, gives the role to members whose connection is a subscriber, and after the grace
 * period takes it away (or kicks) from those who stopped.
 */
export class StreamingService {
  constructor(
    private readonly providers: Map<StreamingType, StreamingProvider>,
    private readonly store: IntegrationsStorePort,
    private readonly streaming: StreamingStorePort,
    private readonly connections: ConnectionsPort,
    private readonly guilds: GuildsPort,
    private readonly integrations: IntegrationsService,
    private readonly ids: IdSource,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(userId: string, guildId: string, type: StreamingType, accountId: string): Promise<void> {
    await this.integrations.requireManageGuild(userId, guildId);
    const existing = (await this.store.listGuild(guildId, 1000)).find((r) => r.type === type && r.account_id === accountId);
    if (existing) return;
    const connection = await this.connections.get(userId, type, accountId);
    if (!connection?.access_token || connection.revoked) throw ApiError.of('UNKNOWN_INTEGRATION');
    const account = await this.withToken(type, accountId, connection.access_token, (token) =>
      this.provider(type).account(token, accountId),
    );
    if (!account) throw ApiError.of('UNKNOWN_INTEGRATION');
    const id = this.ids.next();
    const role = await this.guilds.createManagedRole(guildId, `${account.name} Subscriber`.slice(0, 100), { integrationId: id });
    const created = await this.store.transaction(async (tx) => {
      const row = await tx.insert({
        id,
        guild_id: guildId,
        channel_id: null,
        type,
        name: account.name,
        account_id: account.id,
        account_name: account.name,
        application_id: null,
        scopes: [],
        user_id: userId,
        syncing: false,
        role_id: role,
        enable_emoticons: type === 'twitch' ? false : null,
        expire_behavior: 0,
        expire_grace_period: 1,
        synced_at: this.now(),
        subscriber_count: 0,
        revoked: false,
      });
      if (row) await tx.emit([guildIntegrationsUpdate(guildId), integrationChanged('INTEGRATION_CREATE', guildId, await this.view(row))]);
      return row;
    });
    // Another request enabled it meanwhile: its role is the one in use.
    if (!created) await this.guilds.deleteManagedRole(guildId, role);
  }

  async modify(userId: string, guildId: string, integrationId: string, settings: StreamingSettings): Promise<void> {
    await this.integrations.requireManageGuild(userId, guildId);
    const row = await this.store.get(integrationId);
    if (!row || row.guild_id !== guildId) throw ApiError.of('UNKNOWN_INTEGRATION');
    if (!isStreaming(row))
      throw ApiError.form({ '': { code: 'INTEGRATION_NOT_STREAMING', message: 'Only streaming integrations have these settings.' } });
    if (settings.enable_emoticons !== undefined && row.type !== 'twitch')
      throw ApiError.form({ enable_emoticons: { code: 'BASE_TYPE_INVALID', message: 'Only Twitch integrations sync emoticons.' } });
    const emoticons = settings.enable_emoticons;
    const patch: IntegrationPatch = {
      ...(settings.expire_behavior !== undefined ? { expire_behavior: settings.expire_behavior } : {}),
      ...(settings.expire_grace_period !== undefined ? { expire_grace_period: settings.expire_grace_period } : {}),
      ...(emoticons !== undefined ? { enable_emoticons: emoticons } : {}),
    };
    const turnedOn = emoticons === true && row.enable_emoticons !== true;
    // Emotes turned on arrive with a sync (queued with the change); turned off, they go at once.
    await this.update(
      guildId,
      integrationId,
      turnedOn ? { ...patch, syncing: true } : patch,
      turnedOn ? (tx) => tx.enqueueSync(row.id) : undefined,
    );
    if (turnedOn) this.onSyncRequested();
    if (emoticons === false && row.enable_emoticons !== false) await this.guilds.syncManagedEmojis(guildId, row.id, []);
  }

  /**
   * Sync Guild Integration: a streaming integration shows `syncing: true` (INTEGRATION_UPDATE) and
   * its sync is queued in the same transaction; a worker runs it and clears `syncing`. Others
   * have nothing to read and are announced as they are.
   */
  async sync(userId: string, guildId: string, integrationId: string): Promise<void> {
    await this.integrations.requireManageGuild(userId, guildId);
    const row = await this.store.get(integrationId);
    if (!row || row.guild_id !== guildId) throw ApiError.of('UNKNOWN_INTEGRATION');
    if (!isStreaming(row)) return this.update(guildId, row.id, {});
    await this.update(guildId, row.id, { syncing: true }, (tx) => tx.enqueueSync(row.id));
    this.onSyncRequested();
  }

  /** Called once a sync is queued (the worker of this replica looks at once). */
  onSyncRequested: () => void = () => undefined;

  /**
   * Runs a queued sync: reads the subscribers from the provider, grants and expires roles, and
   * records `synced_at` with `syncing: false`. A failure leaves `syncing` set for the retry, unless
   * it was the last attempt.
   */
  async runSync(integrationId: string, lastAttempt = true): Promise<void> {
    const row = await this.store.get(integrationId);
    if (!isStreaming(row) || !row.guild_id) return;
    try {
      await this.syncNow(row.guild_id, row);
    } catch (err) {
      if (lastAttempt) await this.update(row.guild_id, row.id, { syncing: false });
      throw err;
    }
  }

  private async syncNow(guildId: string, row: IntegrationRecord & { type: StreamingType }): Promise<void> {
    const owner = await this.connections.byAccount(row.type, row.account_id);
    if (!owner?.access_token || owner.revoked) return this.update(guildId, row.id, { revoked: true, syncing: false });
    let current: StreamingAccount[];
    try {
      current = await this.withToken(row.type, row.account_id, owner.access_token, (token) =>
        this.provider(row.type).subscribers(token, row.account_id),
      );
    } catch (err) {
      if (err instanceof ApiError) return this.update(guildId, row.id, { revoked: true, syncing: false });
      throw err;
    }
    await this.streaming.syncSubscribers(row.id, current);
    await this.grantCurrent(row, current);
    await this.expireLapsed(row, new Set(current.map((a) => a.id)));
    await this.syncEmotes(guildId, row, owner.access_token);
    await this.update(guildId, row.id, { synced_at: this.now(), subscriber_count: current.length, syncing: false, revoked: false });
  }

  /**
   * A Twitch integration with `enable_emoticons` mirrors the broadcaster's subscriber emotes as
   * the guild's managed emojis, usable by its subscriber role; without it, it keeps none.
   */
  private async syncEmotes(guildId: string, row: IntegrationRecord & { type: StreamingType }, token: string): Promise<void> {
    const provider = this.provider(row.type);
    if (row.type !== 'twitch' || !provider.emotes) return;
    const emotes = row.enable_emoticons
      ? await this.withToken(row.type, row.account_id, token, (t) => provider.emotes!(t, row.account_id))
      : [];
    const roleIds = row.role_id ? [row.role_id] : [];
    await this.guilds.syncManagedEmojis(
      guildId,
      row.id,
      emotes.map((e) => ({ sourceId: e.id, name: e.name, animated: e.animated, roleIds, imageUrl: e.imageUrl })),
    );
  }

  /** A subscriber (through a connection of theirs) joins the integration's guild with its role. */
  async join(userId: string, integrationId: string): Promise<void> {
    const row = await this.store.get(integrationId);
    if (!isStreaming(row) || !row.guild_id) throw ApiError.of('UNKNOWN_INTEGRATION');
    const mine = (await this.connections.ofUser(userId)).filter((c) => c.type === row.type && !c.revoked).map((c) => c.account_id);
    const account = await this.streaming.isCurrentSubscriber(row.id, mine);
    if (!account) throw ApiError.of('MISSING_ACCESS');
    const error = await this.guilds.addMember(row.guild_id, userId, row.role_id ? [row.role_id] : []);
    if (error !== 0) throw joinError(error, 'Cannot join this guild');
    if (row.role_id) await this.guilds.setManagedRole(row.guild_id, userId, row.role_id, true);
    await this.streaming.addGrant(row.id, userId, account);
  }

  private async grantCurrent(row: IntegrationRecord, current: StreamingAccount[]): Promise<void> {
    if (!row.role_id || !row.guild_id) return;
    const linked = await this.connections.usersOf(
      row.type,
      current.map((a) => a.id),
    );
    for (const [accountId, userId] of linked) {
      const { member } = await this.guilds.setManagedRole(row.guild_id, userId, row.role_id, true);
      if (member) await this.streaming.addGrant(row.id, userId, accountId);
    }
  }

  /** Grants whose account stopped subscribing longer ago than the grace period: the role goes, or the member. */
  private async expireLapsed(row: IntegrationRecord, current: Set<string>): Promise<void> {
    if (!row.guild_id) return;
    const lapsed = await this.streaming.lapsed(row.id);
    const graceMs = (row.expire_grace_period ?? 1) * DAY_MS;
    for (const grant of await this.streaming.grants(row.id)) {
      if (current.has(grant.account_id)) continue;
      const since = lapsed.get(grant.account_id) ?? new Date(0);
      if (this.now().getTime() - since.getTime() < graceMs) continue;
      if (row.expire_behavior === 1) await this.guilds.removeMember(row.guild_id, grant.user_id);
      else if (row.role_id) await this.guilds.setManagedRole(row.guild_id, grant.user_id, row.role_id, false);
      await this.streaming.removeGrant(row.id, grant.user_id);
    }
  }

  private async update(
    guildId: string,
    integrationId: string,
    patch: IntegrationPatch,
    also?: (tx: IntegrationsTx) => Promise<void>,
  ): Promise<void> {
    await this.store.transaction(async (tx) => {
      const locked = await tx.lock(integrationId);
      if (!locked) throw ApiError.of('UNKNOWN_INTEGRATION');
      const row = Object.keys(patch).length > 0 ? await tx.update(integrationId, patch) : locked;
      await also?.(tx);
      await tx.emit([guildIntegrationsUpdate(guildId), integrationChanged('INTEGRATION_UPDATE', guildId, await this.view(row))]);
    });
  }

  private async view(row: IntegrationRecord) {
    return integrationView(row, await this.integrations.context([row], false, false));
  }

  private provider(type: StreamingType): StreamingProvider {
    return providerOf(this.providers, type);
  }

  /**
   * Calls the provider with the account's access token, refreshed first when it has expired, and
   * once more after a refusal (the provider may end a token early); a token that still fails, or
   * no refresh token, marks the connection revoked and answers as an unknown integration.
   */
  private async withToken<T>(type: StreamingType, accountId: string, token: string, call: (token: string) => Promise<T>): Promise<T> {
    const state = await this.connections.refreshState(type, accountId);
    let current = token;
    if (state?.expiresAt && state.expiresAt.getTime() <= this.now().getTime())
      current = (await this.refresh(type, accountId, state)) ?? token;
    try {
      return await call(current);
    } catch (err) {
      if (!refused(err)) throw err;
    }
    const fresh = await this.refresh(type, accountId);
    if (fresh) {
      try {
        return await call(fresh);
      } catch (err) {
        if (!refused(err)) throw err;
      }
    }
    await this.connections.markRevoked(type, accountId);
    throw ApiError.of('UNKNOWN_INTEGRATION');
  }

  /**
   * The new access token after an OAuth2 refresh; undefined when there is no refresh token or the
   * provider refused it. `known`: the token state just read (a retry after a refusal reads it anew).
   */
  private async refresh(type: StreamingType, accountId: string, known?: RefreshState): Promise<string | undefined> {
    const state = known ?? (await this.connections.refreshState(type, accountId));
    if (!state?.refreshToken) return undefined;
    try {
      const tokens = await this.provider(type).refresh(state.refreshToken);
      await this.connections.replaceTokens(type, accountId, tokens);
      return tokens.accessToken;
    } catch (err) {
      if (err instanceof ProviderError && err.kind === 'bad_response') return undefined;
      throw err;
    }
  }
}
