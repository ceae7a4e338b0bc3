import type { ContractUser, DomainEvent } from '@kith/platform';
import { AuthorizeService } from '../../src/domain/applications/authorize.service.js';
import { IntegrationsService } from '../../src/domain/integrations/integrations.service.js';
import type { ApplicationRecord, IntegrationRecord } from '../../src/domain/integrations/model.js';
import type {
  ApplicationsStorePort,
  AuthorizationCodesPort,
  AuthorizationGrant,
  GuildsPort,
  IntegrationPatch,
  IntegrationsStorePort,
  IntegrationsTx,
  NewIntegration,
  PermissionCheck,
  PrivateChannel,
  SocialPort,
  UsersPort,
  WebhooksPort,
} from '../../src/domain/integrations/ports.js';

export const silentLogger = { info() {}, warn() {}, error() {}, debug() {} } as never;

/** The integrations and authorize services over one fake world (ids from 1000), as the module wires them. */
export function servicesOver(world: World, webhooks?: WebhooksPort): { integrations: IntegrationsService; authorize: AuthorizeService } {
  let n = 1000;
  const ids = { next: () => String(n++) };
  const integrations = new IntegrationsService(world, world.applications(), world, world, undefined, silentLogger);
  const authorize = new AuthorizeService(
    world.applications(),
    world,
    integrations,
    world,
    world,
    ids,
    'http://x/authorized',
    world.codes(),
    webhooks,
  );
  return { integrations, authorize };
}

export function application(overrides: Partial<ApplicationRecord> = {}): ApplicationRecord {
  return {
    id: '500',
    owner_id: '100',
    name: 'App',
    description: '',
    icon: null,
    flags: 0,
    bot_user_id: '900',
    bot_public: true,
    bot_require_code_grant: false,
    redirect_uris: [],
    role_connections_verification_url: null,
    verify_key: 'ab',
    ...overrides,
  };
}

/** Integrations in memory; `calls` records every outside effect in order. */
export class World implements IntegrationsStorePort, GuildsPort, UsersPort, SocialPort {
  readonly rows = new Map<string, IntegrationRecord>();
  readonly apps = new Map<string, ApplicationRecord>();
  readonly events: DomainEvent[] = [];
  readonly calls: string[] = [];
  /** guild → user → has MANAGE_GUILD */
  readonly members = new Map<string, Map<string, boolean>>();
  joinError = 0;

  /** What a manager may do in the guild: every permission unless a test narrows it. */
  managerPermissions = (1n << 50n) - 1n;

  member(guildId: string, userId: string, manager: boolean): void {
    if (!this.members.has(guildId)) this.members.set(guildId, new Map());
    this.members.get(guildId)!.set(userId, manager);
  }

  // GuildsPort
  permissions(userId: string, guildId: string): Promise<PermissionCheck> {
    const has = this.members.get(guildId)?.get(userId);
    return Promise.resolve({ member: has !== undefined, allowed: has === true, permissions: has ? this.managerPermissions : 0n });
  }
  addMember(guildId: string, userId: string): Promise<number> {
    this.calls.push(`addMember ${guildId} ${userId}`);
    if (this.joinError === 0) this.member(guildId, userId, false);
    return Promise.resolve(this.joinError);
  }
  removeMember(guildId: string, userId: string): Promise<boolean> {
    this.calls.push(`removeMember ${guildId} ${userId}`);
    return Promise.resolve(this.members.get(guildId)?.delete(userId) ?? false);
  }
  createManagedRole(guildId: string, _name: string, owner: { permissions?: bigint; botId?: string } = {}): Promise<string> {
    this.calls.push(`createManagedRole ${guildId}${owner.botId ? ` bot ${owner.botId} ${owner.permissions ?? 0n}` : ''}`);
    return Promise.resolve('777');
  }
  setManagedRolePermissions(guildId: string, roleId: string, permissions: bigint): Promise<boolean> {
    this.calls.push(`setManagedRolePermissions ${guildId} ${roleId} ${permissions}`);
    return Promise.resolve(true);
  }
  syncManagedEmojis(guildId: string, integrationId: string, emojis: { sourceId: string }[]): Promise<number> {
    this.calls.push(`syncManagedEmojis ${guildId} ${integrationId} ${emojis.map((e) => e.sourceId).join(',')}`);
    return Promise.resolve(0);
  }
  deleteManagedRole(guildId: string, roleId: string): Promise<boolean> {
    this.calls.push(`deleteManagedRole ${guildId} ${roleId}`);
    return Promise.resolve(true);
  }
  setManagedRole(guildId: string, userId: string, roleId: string, present: boolean) {
    this.calls.push(`setManagedRole ${guildId} ${userId} ${roleId} ${present}`);
    return Promise.resolve({ member: true, changed: true });
  }
  channel(): Promise<PrivateChannel | undefined> {
    return Promise.resolve(undefined);
  }
  summary(guildId: string) {
    return Promise.resolve(this.members.has(guildId) ? { id: guildId, name: 'Guild', icon: null, mfaLevel: 0 } : undefined);
  }
  guildIdsOf(userId: string): Promise<string[]> {
    return Promise.resolve([...this.members].filter(([, m]) => m.has(userId)).map(([id]) => id));
  }

  // UsersPort
  createBot(name: string): Promise<ContractUser> {
    return Promise.resolve({ id: '901', username: name, discriminator: '0001', publicFlags: 0n, bot: true });
  }
  users(): Promise<Map<string, ContractUser>> {
    return Promise.resolve(new Map());
  }
  resetBotToken(botUserId: string): Promise<string> {
    this.calls.push(`resetBotToken ${botUserId}`);
    return Promise.resolve(`token-of-${botUserId}`);
  }
  requireElevation(userId: string): Promise<void> {
    this.calls.push(`requireElevation ${userId}`);
    return Promise.resolve();
  }

  // SocialPort
  recordAuthorization(userId: string, applicationId: string): Promise<void> {
    this.calls.push(`social ${userId} ${applicationId}`);
    return Promise.resolve();
  }

  // IntegrationsStorePort
  get(id: string) {
    return Promise.resolve(this.rows.get(id));
  }
  listGuild(guildId: string) {
    return Promise.resolve([...this.rows.values()].filter((r) => r.guild_id === guildId));
  }
  listChannel(channelId: string) {
    return Promise.resolve([...this.rows.values()].filter((r) => r.channel_id === channelId));
  }
  applicationIdsByGuild(guildIds: string[]) {
    const map = new Map<string, string[]>();
    for (const r of this.rows.values())
      if (r.guild_id && guildIds.includes(r.guild_id) && r.application_id)
        map.set(r.guild_id, [...(map.get(r.guild_id) ?? []), r.application_id]);
    return Promise.resolve(map);
  }
  async transaction<T>(fn: (tx: IntegrationsTx) => Promise<T>): Promise<T> {
    const events: DomainEvent[] = [];
    const tx: IntegrationsTx = {
      upsertApp: (n: NewIntegration) => {
        const same = [...this.rows.values()].find(
          (r) => r.guild_id === n.guild_id && r.channel_id === n.channel_id && r.account_id === n.account_id,
        );
        if (same) {
          same.scopes = [...new Set([...same.scopes, ...n.scopes])].sort();
          same.role_id ??= n.role_id;
          return Promise.resolve({ integration: same, created: false });
        }
        const row = { ...n, enabled: true };
        this.rows.set(row.id, row);
        return Promise.resolve({ integration: row, created: true });
      },
      insert: (n: NewIntegration) => {
        const row = { ...n, enabled: true };
        this.rows.set(row.id, row);
        return Promise.resolve(row);
      },
      lock: (id) => Promise.resolve(this.rows.get(id)),
      lockGuildApps: (guildId) => Promise.resolve([...this.rows.values()].filter((r) => r.guild_id === guildId && r.type === 'discord')),
      update: (id: string, patch: IntegrationPatch) => {
        const row = { ...this.rows.get(id)!, ...patch };
        this.rows.set(id, row);
        return Promise.resolve(row);
      },
      delete: (id) => Promise.resolve(this.rows.delete(id)),
      enqueueSync: (id) => Promise.resolve(void this.calls.push(`enqueueSync ${id}`)),
      emit: (e) => {
        events.push(...e);
        return Promise.resolve();
      },
    };
    const result = await fn(tx);
    this.events.push(...events);
    this.calls.push(`commit ${events.map((e) => e.name).join(',')}`);
    return result;
  }

  /** Authorization codes issued, by code. */
  readonly grants = new Map<string, AuthorizationGrant>();

  /** The authorization codes side. */
  codes(): AuthorizationCodesPort {
    return {
      issue: (grant) => {
        const code = `code-${this.grants.size + 1}`;
        this.grants.set(code, grant);
        return Promise.resolve(code);
      },
    };
  }

  /** The applications side of the store. */
  applications(): ApplicationsStorePort {
    const apps = this.apps;
    const calls = this.calls;
    return {
      insert: (a) => {
        const row = application(a);
        apps.set(row.id, row);
        return Promise.resolve(row);
      },
      get: (id) => Promise.resolve(apps.get(id)),
      many: (ids) => Promise.resolve(ids.flatMap((id) => (apps.has(id) ? [apps.get(id)!] : []))),
      ownedBy: (owner) => Promise.resolve([...apps.values()].filter((a) => a.owner_id === owner)),
      update: () => Promise.resolve(undefined),
      commands: () => Promise.resolve([]),
      upsertCommand: (c) => Promise.resolve(c),
      deleteCommand: () => Promise.resolve(false),
      withCommands: () => Promise.resolve(new Set()),
      roleConnectionMetadata: () => Promise.resolve(new Map()),
      authorizedScopes: () => Promise.resolve([]),
      setRoleConnectionMetadata: () => Promise.resolve(),
      saveIcon: () => Promise.resolve(),
      icon: () => Promise.resolve(undefined),
      recordAuthorization: (_id, userId, appId) => {
        calls.push(`authorization ${userId} ${appId}`);
        return Promise.resolve();
      },
    };
  }
}
