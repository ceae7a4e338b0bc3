import { ApiError, type ErrorName } from '@kith/platform';
import { guildIntegrationsUpdate, integrationChanged } from '../integrations/integration.events.js';
import { integrationView } from '../integrations/integration.view.js';
import { joinError } from '../integrations/join-error.js';
import type { IntegrationsService } from '../integrations/integrations.service.js';
import { GROUP_DM, GUILD_SCOPES, KNOWN_SCOPES, MANAGE_GUILD, type ApplicationRecord } from '../integrations/model.js';
import type {
  ApplicationsStorePort,
  GuildsPort,
  IdSource,
  AuthorizationCodesPort,
  IntegrationsStorePort,
  SocialPort,
  WebhooksPort,
} from '../integrations/ports.js';
import { checkResponseType, registeredRedirect } from './oauth2-redirect.js';

/** Where an install into a guild or for a user is installed (the platform's integration types). */
export const GUILD_INSTALL = 0;
export const USER_INSTALL = 1;

export interface AuthorizeRequest {
  clientId: string;
  scopes: string[];
  integrationType: number;
  authorize: boolean;
  guildId?: string | undefined;
  channelId?: string | undefined;
  /** The bot's permissions in the guild (the `bot` scope); none: no role for it. */
  permissions?: bigint | undefined;
  /** `webhook.incoming`: the channel the application's webhook goes to. */
  webhookChannelId?: string | undefined;
  /** The authorization code grant: `code`, with where the browser goes back to and its state. */
  responseType?: string | undefined;
  redirectUri?: string | undefined;
  state?: string | undefined;
}

/** The URL with these query parameters added (those without a value left out). */
function withQuery(url: string, params: Record<string, string | undefined>): string {
  const target = new URL(url);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) target.searchParams.set(key, value);
  return target.toString();
}

const WEBHOOK_ERRORS: Record<number, ErrorName> = {
  10003: 'UNKNOWN_CHANNEL',
  50013: 'MISSING_PERMISSIONS',
  50024: 'INVALID_CHANNEL_TYPE',
  30007: 'MAX_WEBHOOKS',
  30058: 'MAX_GUILD_WEBHOOKS',
};

/**
 * The platform's OAuth2 authorization by a signed-in user (POST /oauth2/authorize): into a guild
 * (the `bot` and `applications.commands` scopes: an app integration, its bot a member), into a
 * group DM, or for the user themself (recorded here and with social, for game relationships).
 */
export class AuthorizeService {
  constructor(
    private readonly applications: ApplicationsStorePort,
    private readonly integrations: IntegrationsStorePort,
    private readonly guildIntegrations: IntegrationsService,
    private readonly guilds: GuildsPort,
    private readonly social: SocialPort,
    private readonly ids: IdSource,
    private readonly authorizedUrl: string,
    private readonly codes: AuthorizationCodesPort,
    /** The webhooks service, for `webhook.incoming` (absent where it is not deployed). */
    private readonly webhooks?: WebhooksPort,
  ) {}

  async authorize(userId: string, request: AuthorizeRequest): Promise<{ location: string; webhook?: Record<string, unknown> }> {
    checkResponseType(request.responseType);
    const app = await this.application(request.clientId, request.scopes);
    // Checked before anything is installed: a browser is never sent where the application did not register.
    const redirect = registeredRedirect(app, request.redirectUri, request.responseType);
    if (!request.authorize)
      return {
        location: redirect
          ? withQuery(redirect, { error: 'access_denied', state: request.state })
          : `${this.authorizedUrl}?error=access_denied`,
      };
    const scopes = [...new Set(request.scopes)].sort();
    const installsInGuild =
      scopes.includes('bot') ||
      (request.guildId !== undefined && request.integrationType === GUILD_INSTALL && scopes.some((s) => GUILD_SCOPES.has(s)));
    if (installsInGuild)
      await this.installInGuild(
        userId,
        app,
        request.guildId,
        scopes.filter((s) => GUILD_SCOPES.has(s)),
        request.permissions ?? 0n,
      );
    else if (request.channelId !== undefined)
      await this.installInGroupDm(
        userId,
        app,
        request.channelId,
        scopes.filter((s) => GUILD_SCOPES.has(s)),
      );
    const webhook = scopes.includes('webhook.incoming') ? await this.incomingWebhook(userId, app, request) : undefined;
    const forUser = request.integrationType === USER_INSTALL || scopes.some((s) => !GUILD_SCOPES.has(s));
    if (forUser) {
      await this.applications.recordAuthorization(this.ids.next(), userId, app.id, scopes);
      await this.social.recordAuthorization(userId, app.id);
    }
    const location = redirect ? await this.codeRedirect(userId, app, redirect, scopes, request) : this.authorizedUrl;
    return webhook ? { location, webhook } : { location };
  }

  /** The redirect back to the application with a fresh code (and, for a bot, the guild and permissions as hints). */
  private async codeRedirect(
    userId: string,
    app: ApplicationRecord,
    redirectUri: string,
    scopes: string[],
    request: AuthorizeRequest,
  ): Promise<string> {
    const bot = scopes.includes('bot');
    const guildId = bot ? request.guildId : undefined;
    const permissions = bot ? String(request.permissions ?? 0n) : undefined;
    const code = await this.codes.issue({ applicationId: app.id, userId, scopes, redirectUri, guildId, permissions });
    return withQuery(redirectUri, { code, state: request.state, guild_id: guildId, permissions });
  }

  /**
   * `webhook.incoming`: the application's webhook in the channel the user chose (the webhooks
   * service checks they may manage webhooks there). The user is shown what was made; its token and
   * URL are the application's, for its token exchange, not the user's.
   */
  private async incomingWebhook(userId: string, app: ApplicationRecord, request: AuthorizeRequest): Promise<Record<string, unknown>> {
    if (request.webhookChannelId === undefined)
      throw ApiError.form({ webhook_channel_id: { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' } });
    if (!this.webhooks) throw ApiError.form({ scope: { code: 'SCOPE_INVALID', message: 'Invalid scope: webhook.incoming' } });
    const { errorCode, webhook } = await this.webhooks.createApplicationWebhook({
      userId,
      channelId: request.webhookChannelId,
      guildId: request.guildId,
      applicationId: app.id,
      name: app.name,
      avatar: app.icon,
      applicationUserId: app.bot_user_id,
    });
    if (errorCode !== 0 || !webhook)
      throw WEBHOOK_ERRORS[errorCode] ? ApiError.of(WEBHOOK_ERRORS[errorCode]) : ApiError.of('UNKNOWN_CHANNEL');
    const { token: _token, url: _url, ...shown } = webhook;
    return shown;
  }

  private async application(clientId: string, scopes: string[]): Promise<ApplicationRecord> {
    const unknown = scopes.find((s) => !KNOWN_SCOPES.has(s));
    if (scopes.length === 0 || unknown !== undefined)
      throw ApiError.form({
        scope: { code: 'SCOPE_INVALID', message: unknown ? `Invalid scope: ${unknown.slice(0, 64)}` : 'This field is required' },
      });
    const app = await this.applications.get(clientId);
    if (!app) throw ApiError.of('UNKNOWN_APPLICATION');
    return app;
  }

  private async installInGuild(
    userId: string,
    app: ApplicationRecord,
    guildId: string | undefined,
    scopes: string[],
    permissions: bigint,
  ): Promise<void> {
    if (guildId === undefined) throw ApiError.form({ guild_id: { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' } });
    const check = await this.guilds.permissions(userId, guildId, MANAGE_GUILD);
    if (!check.member) throw ApiError.of('UNKNOWN_GUILD');
    if (!check.allowed) throw ApiError.of('MISSING_PERMISSIONS');
    const bot = scopes.includes('bot');
    // Nobody grants a bot what they lack themself.
    if (bot && (permissions & ~check.permissions) !== 0n) throw ApiError.of('MISSING_PERMISSIONS');
    let role: string | null = null;
    if (bot) {
      // A private bot is added by its owner only.
      if (!app.bot_public && app.owner_id !== userId) throw ApiError.of('MISSING_ACCESS');
      if (!app.bot_user_id) throw ApiError.form({ scope: { code: 'SCOPE_INVALID', message: 'This application has no bot.' } });
      role = await this.botRole(guildId, app, app.bot_user_id, permissions);
      const error = await this.guilds.addMember(guildId, app.bot_user_id, role ? [role] : []);
      if (error !== 0) {
        if (role) await this.guilds.deleteManagedRole(guildId, role);
        throw joinError(error, 'Cannot add the bot to this guild');
      }
    }
    const draft = this.appIntegration(userId, app, { guild_id: guildId, channel_id: null }, scopes);
    // Read before the transaction: inside it, concurrent authorizations of the app wait on its row
    // holding their pool connections, and a read on the pool from there could wait on them in turn.
    const ctx = await this.guildIntegrations.context([draft], false, false);
    const kept = await this.integrations.transaction(async (tx) => {
      const { integration, created } = await tx.upsertApp({ ...draft, role_id: role });
      const view = integrationView(integration, ctx);
      await tx.emit([
        guildIntegrationsUpdate(guildId),
        integrationChanged(created ? 'INTEGRATION_CREATE' : 'INTEGRATION_UPDATE', guildId, view),
      ]);
      return integration.role_id;
    });
    if (role && kept !== role && app.bot_user_id) {
      // A concurrent authorization's role won: this one goes, and the bot holds the kept one.
      await this.guilds.deleteManagedRole(guildId, role);
      if (kept) await this.guilds.setManagedRole(guildId, app.bot_user_id, kept, true);
    }
  }

  /**
   * The bot's managed role, named after it and tagged with it, holding the permissions the
   * authorization asked for; none is made without permissions (the platform's rule). When the
   * bot's integration in the guild already has one, that role takes the permissions now asked
   * (GUILD_ROLE_UPDATE) and no other is made.
   */
  private async botRole(guildId: string, app: ApplicationRecord, botUserId: string, permissions: bigint): Promise<string | null> {
    const existing = (await this.integrations.listGuild(guildId, 1000)).find((r) => r.type === 'discord' && r.application_id === app.id);
    if (existing?.role_id) {
      await this.guilds.setManagedRolePermissions(guildId, existing.role_id, permissions);
      return null;
    }
    if (permissions === 0n) return null;
    return this.guilds.createManagedRole(guildId, app.name, { permissions, botId: botUserId });
  }

  /** An application installed into a group DM the user is in (no bot joins: group DMs have no bots). */
  private async installInGroupDm(userId: string, app: ApplicationRecord, channelId: string, scopes: string[]): Promise<void> {
    const channel = await this.guilds.channel(channelId);
    if (!channel || !channel.recipientIds.includes(userId)) throw ApiError.of('UNKNOWN_CHANNEL');
    if (channel.type !== GROUP_DM) throw ApiError.of('MISSING_ACCESS');
    await this.integrations.transaction(async (tx) => {
      await tx.upsertApp(
        this.appIntegration(userId, app, { guild_id: null, channel_id: channelId }, scopes.length ? scopes : ['applications.commands']),
      );
      await tx.emit([]);
    });
  }

  private appIntegration(
    userId: string,
    app: ApplicationRecord,
    where: { guild_id: string | null; channel_id: string | null },
    scopes: string[],
  ) {
    return {
      id: this.ids.next(),
      ...where,
      type: 'discord' as const,
      name: app.name,
      account_id: app.id,
      account_name: app.name,
      application_id: app.id,
      scopes,
      user_id: userId,
      syncing: null,
      role_id: null,
      enable_emoticons: null,
      expire_behavior: null,
      expire_grace_period: null,
      synced_at: null,
      subscriber_count: null,
      revoked: null,
    };
  }
}
