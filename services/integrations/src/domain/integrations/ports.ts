import type { ContractUser, DomainEvent } from '@kith/platform';
import type { ApplicationRecord, CommandRecord, IntegrationRecord } from './model.js';

/** Users, from auth. */
export interface UsersPort {
  /** A new bot user named after the application. */
  createBot(name: string): Promise<ContractUser>;
  /** Users by id; ones auth no longer knows are missing from the map. */
  users(ids: string[]): Promise<Map<string, ContractUser>>;
  /** The bot's new token; auth revokes every earlier one and keeps only the new one's digest. */
  resetBotToken(botUserId: string): Promise<string>;
  /**
   * A sensitive action needs a recent MFA verification of the caller's session (the elevation JWT
   * of `POST /mfa/finish`); refused with the platform's 60003 body (a fresh ticket) otherwise.
   */
  requireElevation(userId: string, sessionId: string | null, elevationToken: string): Promise<void>;
}

export interface PermissionCheck {
  member: boolean;
  allowed: boolean;
  /** The user's permissions in the guild (every one for its owner and administrators). */
  permissions: bigint;
}

export interface GuildSummary {
  id: string;
  name: string;
  icon: string | null;
  mfaLevel: number;
}

/** What a managed role is for: a bot's permissions, or a streaming integration's subscribers. */
/** An emoji an integration keeps in a guild: the provider's emote, usable by `roleIds` (empty: everyone). */
export interface ManagedEmoji {
  sourceId: string;
  name: string;
  animated: boolean;
  roleIds: string[];
  imageUrl: string;
}

export interface ManagedRoleOwner {
  permissions?: bigint;
  botId?: string;
  integrationId?: string;
}

export interface PrivateChannel {
  id: string;
  type: number;
  guildId: string;
  recipientIds: string[];
}

/** Guilds: permissions, membership and channels. */
export interface GuildsPort {
  permissions(userId: string, guildId: string, required: bigint): Promise<PermissionCheck>;
  /** Joins a user (a bot) to a guild; the platform's error code when refused, 0 when a member now. */
  addMember(guildId: string, userId: string, roleIds?: string[]): Promise<number>;
  /** A managed role for an integration (tagged with its bot or integration); its id. */
  createManagedRole(guildId: string, name: string, owner?: ManagedRoleOwner): Promise<string>;
  /** A managed role's permissions become these (GUILD_ROLE_UPDATE when they changed); false: no such managed role. */
  setManagedRolePermissions(guildId: string, roleId: string, permissions: bigint): Promise<boolean>;
  deleteManagedRole(guildId: string, roleId: string): Promise<boolean>;
  /** The integration's managed emojis in the guild become exactly these (GUILD_EMOJIS_UPDATE when they change); 0 or 10004. */
  syncManagedEmojis(guildId: string, integrationId: string, emojis: ManagedEmoji[]): Promise<number>;
  setManagedRole(guildId: string, userId: string, roleId: string, present: boolean): Promise<{ member: boolean; changed: boolean }>;
  removeMember(guildId: string, userId: string): Promise<boolean>;
  channel(channelId: string): Promise<PrivateChannel | undefined>;
  /** What an authorization screen shows of a guild; undefined when there is none. */
  summary(guildId: string): Promise<GuildSummary | undefined>;
  /** The guilds the user is a member of. */
  guildIdsOf(userId: string): Promise<string[]>;
}

/** Social: a user's authorization of an application is what game relationships need. */
export interface SocialPort {
  recordAuthorization(userId: string, applicationId: string): Promise<void>;
}

/** The webhooks service: an integration's webhooks (absent where it is not deployed). */
export interface WebhooksPort {
  deleteIntegrationWebhooks(guildId: string, integrationId: string, applicationId: string | null): Promise<void>;
  /** `webhook.incoming`: the application's webhook in the channel the user chose, or the platform's code refusing it. */
  createApplicationWebhook(request: ApplicationWebhookRequest): Promise<{ errorCode: number; webhook?: ApplicationWebhookView }>;
}

export interface ApplicationWebhookRequest {
  userId: string;
  channelId: string;
  guildId: string | undefined;
  applicationId: string;
  name: string;
  avatar: string | null;
  /** The application's bot user, shown the token by id. */
  applicationUserId: string | null;
}

/** The platform's webhook object as the token exchange carries it. */
export interface ApplicationWebhookView {
  id: string;
  type: number;
  guild_id: string;
  channel_id: string;
  name: string;
  avatar: string | null;
  application_id: string;
  token: string;
  url: string;
}

export type NewApplication = Omit<
  ApplicationRecord,
  'bot_public' | 'bot_require_code_grant' | 'redirect_uris' | 'role_connections_verification_url'
>;
export type ApplicationPatch = Partial<Pick<ApplicationRecord, 'name' | 'description' | 'flags' | 'redirect_uris' | 'icon'>>;
export type NewCommand = CommandRecord;

export interface ApplicationsStorePort {
  insert(app: NewApplication): Promise<ApplicationRecord>;
  get(id: string): Promise<ApplicationRecord | undefined>;
  many(ids: string[]): Promise<ApplicationRecord[]>;
  ownedBy(ownerId: string): Promise<ApplicationRecord[]>;
  update(id: string, patch: ApplicationPatch): Promise<ApplicationRecord | undefined>;
  commands(applicationId: string, guildId: string | null): Promise<CommandRecord[]>;
  /** Creates or (same name and type) replaces a command. */
  upsertCommand(command: NewCommand): Promise<CommandRecord>;
  deleteCommand(applicationId: string, commandId: string): Promise<boolean>;
  /** Which of these applications have commands usable in the guild (global or the guild's own). */
  withCommands(applicationIds: string[], guildId: string): Promise<Set<string>>;
  roleConnectionMetadata(applicationIds: string[]): Promise<Map<string, unknown[]>>;
  /** Replaces the application's role connection metadata records. */
  setRoleConnectionMetadata(applicationId: string, records: unknown[]): Promise<void>;
  /** Keeps an icon's bytes under its hash (storing the same one again is a no-op). */
  saveIcon(applicationId: string, icon: { hash: string; contentType: string; data: Buffer }): Promise<void>;
  icon(applicationId: string, hash: string): Promise<{ contentType: string; data: Buffer } | undefined>;
  /** The scopes the user has granted the application (none: never authorized). */
  authorizedScopes(userId: string, applicationId: string): Promise<string[]>;
  /** Records (or widens) the user's authorization of the application. */
  recordAuthorization(id: string, userId: string, applicationId: string, scopes: string[]): Promise<void>;
}

export type NewIntegration = Omit<IntegrationRecord, 'enabled'>;
export type IntegrationPatch = Partial<
  Pick<
    IntegrationRecord,
    | 'scopes'
    | 'syncing'
    | 'enable_emoticons'
    | 'expire_behavior'
    | 'expire_grace_period'
    | 'synced_at'
    | 'subscriber_count'
    | 'revoked'
    | 'role_id'
    | 'account_name'
    | 'name'
  >
>;

export interface IntegrationsReadPort {
  get(id: string): Promise<IntegrationRecord | undefined>;
  listGuild(guildId: string, limit: number): Promise<IntegrationRecord[]>;
  listChannel(channelId: string, limit: number): Promise<IntegrationRecord[]>;
  /** Every guild asked for, with the applications of its integrations (none: an empty list). */
  applicationIdsByGuild(guildIds: string[]): Promise<Map<string, string[]>>;
}

/** One transaction: writes and the events they cause commit together (outbox). */
export interface IntegrationsTx {
  /** Inserts an app integration, or widens the scopes of the guild's (or channel's) one; `created` says which. */
  upsertApp(integration: NewIntegration): Promise<{ integration: IntegrationRecord; created: boolean }>;
  insert(integration: NewIntegration): Promise<IntegrationRecord | undefined>;
  /** The integration, locked until the transaction ends. */
  lock(id: string): Promise<IntegrationRecord | undefined>;
  lockGuildApps(guildId: string): Promise<IntegrationRecord[]>;
  update(id: string, patch: IntegrationPatch): Promise<IntegrationRecord>;
  delete(id: string): Promise<boolean>;
  /** Queues a sync of the integration (one waits per integration: a second request joins it). */
  enqueueSync(id: string): Promise<void>;
  emit(events: DomainEvent[]): Promise<void>;
}

export interface IntegrationsStorePort extends IntegrationsReadPort {
  transaction<T>(fn: (tx: IntegrationsTx) => Promise<T>): Promise<T>;
}

export interface IdSource {
  next(): string;
}

/** Rendered guild integration lists (JSON), dropped when the guild's integrations change. */
export interface GuildListCache {
  read(guildId: string, variant: string): Promise<{ version: string; body: string | undefined }>;
  write(guildId: string, variant: string, version: string, body: string): Promise<void>;
  invalidate(guildIds: string[]): Promise<void>;
}

/** An authorization code's grant: what the token exchange may turn into an access token, once. */
export interface AuthorizationGrant {
  applicationId: string;
  userId: string;
  scopes: string[];
  redirectUri: string;
  guildId?: string | undefined;
  permissions?: string | undefined;
}

/** Short-lived authorization codes (the authorization code grant), kept only as their hashes. */
export interface AuthorizationCodesPort {
  /** A fresh code for the grant. */
  issue(grant: AuthorizationGrant): Promise<string>;
}
