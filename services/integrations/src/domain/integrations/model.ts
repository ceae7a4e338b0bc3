/** An application (integrations own them): its bot is a user auth created with `bot: true`. */
export interface ApplicationRecord {
  id: string;
  owner_id: string;
  name: string;
  description: string;
  icon: string | null;
  flags: number;
  bot_user_id: string | null;
  bot_public: boolean;
  bot_require_code_grant: boolean;
  redirect_uris: string[];
  role_connections_verification_url: string | null;
  verify_key: string;
}

export interface CommandRecord {
  id: string;
  application_id: string;
  guild_id: string | null;
  type: number;
  name: string;
  description: string;
  options: unknown[];
  version: string;
}

/** The platform's integration types; the spec's neutral names map onto them. */
export type IntegrationType = 'discord' | 'twitch' | 'youtube' | 'guild_subscription';
export type StreamingType = 'twitch' | 'youtube';

export interface IntegrationRecord {
  id: string;
  guild_id: string | null;
  channel_id: string | null;
  type: IntegrationType;
  name: string;
  enabled: boolean;
  account_id: string;
  account_name: string;
  application_id: string | null;
  scopes: string[];
  user_id: string | null;
  syncing: boolean | null;
  role_id: string | null;
  enable_emoticons: boolean | null;
  expire_behavior: number | null;
  expire_grace_period: number | null;
  synced_at: Date | null;
  subscriber_count: number | null;
  revoked: boolean | null;
}

/** MANAGE_GUILD (1 << 5). */
export const MANAGE_GUILD = 1n << 5n;
/** A group DM's channel type. */
export const GROUP_DM = 3;
/** Get Guild Integrations and Get Channel Integrations answer at most this many. */
export const MAX_LISTED = 50;

/** The scopes that install an application into a guild rather than authorize it for the user. */
export const GUILD_SCOPES: ReadonlySet<string> = new Set(['bot', 'applications.commands', 'webhook.incoming']);

/** The platform's OAuth2 scopes a user can grant here. */
export const KNOWN_SCOPES: ReadonlySet<string> = new Set([
  'activities.read',
  'activities.write',
  'applications.builds.read',
  'applications.commands',
  'applications.commands.permissions.update',
  'applications.entitlements',
  'applications.store.update',
  'bot',
  'connections',
  'dm_channels.read',
  'email',
  'gdm.join',
  'guilds',
  'guilds.join',
  'guilds.members.read',
  'identify',
  'openid',
  'relationships.read',
  'role_connections.write',
  'rpc',
  'voice',
  'webhook.incoming',
]);
