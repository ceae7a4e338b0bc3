import { userView, type ContractUser, type PartialUserView } from '@kith/platform';
import type { ApplicationRecord, CommandRecord } from '../integrations/model.js';

/** The platform's application flags a developer may set; the others are the platform's to grant. */
export const ApplicationFlags = {
  GATEWAY_PRESENCE_LIMITED: 1 << 13,
  GATEWAY_GUILD_MEMBERS_LIMITED: 1 << 15,
  EMBEDDED: 1 << 17,
  GATEWAY_MESSAGE_CONTENT_LIMITED: 1 << 19,
} as const;
export const SETTABLE_FLAGS = Object.values(ApplicationFlags).reduce((a, b) => a | b, 0);

/** The application as its owner sees it (GET /applications/{id}). */
export function applicationView(app: ApplicationRecord, users: Map<string, ContractUser>) {
  const bot: PartialUserView | undefined = app.bot_user_id ? userView(app.bot_user_id, users.get(app.bot_user_id)) : undefined;
  return {
    id: app.id,
    name: app.name,
    icon: app.icon,
    description: app.description,
    summary: '',
    type: null,
    flags: app.flags,
    verify_key: app.verify_key,
    bot_public: app.bot_public,
    bot_require_code_grant: app.bot_require_code_grant,
    redirect_uris: app.redirect_uris,
    role_connections_verification_url: app.role_connections_verification_url,
    owner: userView(app.owner_id, users.get(app.owner_id)),
    team: null,
    hook: true,
    is_verified: false,
    is_discoverable: false,
    is_monetized: false,
    integration_public: app.bot_public,
    integration_require_code_grant: app.bot_require_code_grant,
    ...(bot ? { bot } : {}),
  };
}

export function commandView(c: CommandRecord) {
  return {
    id: c.id,
    application_id: c.application_id,
    ...(c.guild_id ? { guild_id: c.guild_id } : {}),
    type: c.type,
    name: c.name,
    description: c.description,
    options: c.options,
    default_member_permissions: null,
    dm_permission: true,
    nsfw: false,
    version: c.version,
  };
}
