import { ApiError, userView } from '@kith/platform';
import { GUILD_SCOPES, KNOWN_SCOPES, MANAGE_GUILD, type ApplicationRecord } from '../integrations/model.js';
import type { ApplicationsStorePort, GuildsPort, UsersPort } from '../integrations/ports.js';
import { GUILD_INSTALL } from './authorize.service.js';
import { checkResponseType, formError, registeredRedirect } from './oauth2-redirect.js';

export interface PreviewRequest {
  clientId: string;
  scopes: string[];
  integrationType: number;
  responseType?: string | undefined;
  redirectUri?: string | undefined;
}

/** The platform's 200-guild membership cap: never more to look through. */
const MAX_GUILDS = 200;

/** The application as the authorization screen shows it (a partial application). */
function previewApplication(app: ApplicationRecord) {
  return {
    id: app.id,
    name: app.name,
    icon: app.icon,
    description: app.description,
    summary: '',
    type: null,
    hook: true,
    bot_public: app.bot_public,
    bot_require_code_grant: app.bot_require_code_grant,
    verify_key: app.verify_key,
    flags: app.flags,
    is_verified: false,
    is_discoverable: false,
    is_monetized: false,
  };
}

/**
 * Preview OAuth2 Authorization (GET /oauth2/authorize): what the consent screen shows before the
 * user agrees: the application, the user, its bot, the guilds the user may add it to (those where
 * they have MANAGE_GUILD), where the browser goes after, and whether consent can be skipped.
 */
export class AuthorizePreview {
  constructor(
    private readonly applications: ApplicationsStorePort,
    private readonly guilds: GuildsPort,
    private readonly users: UsersPort,
  ) {}

  async preview(userId: string, request: PreviewRequest) {
    const scopes = [...new Set(request.scopes)].sort();
    const unknown = scopes.find((s) => !KNOWN_SCOPES.has(s));
    if (scopes.length === 0 || unknown !== undefined)
      throw formError('scope', 'SCOPE_INVALID', unknown ? `Invalid scope: ${unknown.slice(0, 64)}` : 'This field is required');
    checkResponseType(request.responseType);
    const app = await this.applications.get(request.clientId);
    if (!app) throw ApiError.of('UNKNOWN_APPLICATION');
    const redirectUri = registeredRedirect(app, request.redirectUri, request.responseType);
    const bot = scopes.includes('bot');
    // A private bot is shown to its owner only, as only they may add it.
    if (bot && !app.bot_public && app.owner_id !== userId) throw ApiError.of('MISSING_ACCESS');
    const inGuild = request.integrationType === GUILD_INSTALL && scopes.some((s) => s === 'bot' || s === 'applications.commands');
    const [users, guilds, authorized] = await Promise.all([
      this.users.users([userId, ...(app.bot_user_id ? [app.bot_user_id] : [])]),
      inGuild ? this.manageableGuilds(userId) : Promise.resolve(undefined),
      this.alreadyAuthorized(userId, app.id, scopes),
    ]);
    return {
      application: previewApplication(app),
      user: userView(userId, users.get(userId)),
      // Adding a bot always asks again: a guild and permissions are chosen each time.
      authorized: !bot && authorized,
      integration_type: request.integrationType,
      ...(request.responseType !== undefined ? { redirect_uri: redirectUri ?? null } : {}),
      ...(bot && app.bot_user_id ? { bot: userView(app.bot_user_id, users.get(app.bot_user_id)) } : {}),
      ...(guilds ? { guilds } : {}),
    };
  }

  private async manageableGuilds(userId: string) {
    const ids = (await this.guilds.guildIdsOf(userId)).slice(0, MAX_GUILDS);
    const guilds = await Promise.all(
      ids.map(async (id) => {
        const [check, guild] = await Promise.all([this.guilds.permissions(userId, id, MANAGE_GUILD), this.guilds.summary(id)]);
        if (!check.allowed || !guild) return undefined;
        return { id, name: guild.name, icon: guild.icon, mfa_level: guild.mfaLevel, permissions: check.permissions.toString() };
      }),
    );
    return guilds.filter((g) => g !== undefined);
  }

  private async alreadyAuthorized(userId: string, applicationId: string, scopes: string[]): Promise<boolean> {
    const granted = new Set(await this.applications.authorizedScopes(userId, applicationId));
    return scopes.every((s) => granted.has(s) || GUILD_SCOPES.has(s));
  }
}
