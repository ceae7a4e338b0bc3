import { generateKeyPairSync } from 'node:crypto';
import { ApiError } from '@kith/platform';
import type { ApplicationRecord } from '../integrations/model.js';
import type { ApplicationPatch, ApplicationsStorePort, IdSource, UsersPort } from '../integrations/ports.js';
import { applicationView, commandView, SETTABLE_FLAGS } from './application.view.js';
import { decodeIcon } from './app-icon.js';

/** At most this many applications per owner (the platform's cap on a developer's applications). */
export const MAX_APPLICATIONS = 25;
/** At most this many commands per application and scope. */
export const MAX_COMMANDS = 100;

export interface NewApplicationInput {
  name: string;
  description?: string | undefined;
  flags?: number | undefined;
}

/** A change of the application; `icon` is image data (a data URI), or null to remove it. */
export type ApplicationUpdate = Omit<ApplicationPatch, 'icon'> & { icon?: string | null | undefined };

/** One role connection metadata record, as validated. */
export interface RoleConnectionRecord {
  type: number;
  key: string;
  name: string;
  name_localizations?: Record<string, string> | null | undefined;
  description: string;
  description_localizations?: Record<string, string> | null | undefined;
}

export interface CommandInput {
  name: string;
  description: string;
  type: number;
  options: unknown[];
}

/** The hex of a fresh Ed25519 public key, as the platform shows an application's `verify_key`. */
function verifyKey(): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' });
  // The last 32 bytes of an Ed25519 SPKI are the key itself.
  return raw.subarray(raw.length - 32).toString('hex');
}

function checkFlags(flags: number | undefined): void {
  if (flags !== undefined && (flags & ~SETTABLE_FLAGS) !== 0)
    throw ApiError.form({ flags: { code: 'BASE_TYPE_INVALID', message: 'Cannot set these application flags.' } });
}

/** Developers' applications: each with a bot user (auth) and its registered commands. */
export class ApplicationsService {
  constructor(
    private readonly store: ApplicationsStorePort,
    private readonly users: UsersPort,
    private readonly ids: IdSource,
  ) {}

  async create(ownerId: string, input: NewApplicationInput) {
    checkFlags(input.flags);
    if ((await this.store.ownedBy(ownerId)).length >= MAX_APPLICATIONS)
      throw ApiError.form({
        '': { code: 'MAX_APPLICATIONS', message: `Maximum number of applications reached (${MAX_APPLICATIONS})` },
      });
    const bot = await this.users.createBot(input.name);
    // The application's id is its bot's, as the platform's applications are (READY's `application.id`).
    const app = await this.store.insert({
      id: bot.id,
      owner_id: ownerId,
      name: input.name,
      description: input.description ?? '',
      icon: null,
      flags: input.flags ?? 0,
      bot_user_id: bot.id,
      verify_key: verifyKey(),
    });
    return this.render(app);
  }

  async list(ownerId: string) {
    const apps = await this.store.ownedBy(ownerId);
    const users = await this.users.users([ownerId, ...apps.flatMap((a) => (a.bot_user_id ? [a.bot_user_id] : []))]);
    return apps.map((a) => applicationView(a, users));
  }

  async get(userId: string, applicationId: string) {
    return this.render(await this.owned(userId, applicationId));
  }

  /** Changes the application; an icon (a data URI) is stored under its hash, which the application then names. */
  async update(userId: string, applicationId: string, input: ApplicationUpdate) {
    checkFlags(input.flags);
    await this.owned(userId, applicationId);
    const { icon, ...rest } = input;
    const patch: ApplicationPatch = rest;
    if (icon === null) patch.icon = null;
    else if (icon !== undefined) {
      const image = decodeIcon(icon);
      await this.store.saveIcon(applicationId, image);
      patch.icon = image.hash;
    }
    const app = await this.store.update(applicationId, patch);
    if (!app) throw ApiError.of('UNKNOWN_APPLICATION');
    return this.render(app);
  }

  /**
   * Reset Application Bot Token: the owner, after a recent MFA verification, gets the bot's new
   * token once (every earlier token stops working); it is never stored here or shown again.
   */
  async resetBotToken(caller: { userId: string; sessionId: string | null; elevationToken: string }, applicationId: string) {
    const app = await this.owned(caller.userId, applicationId);
    if (!app.bot_user_id) throw ApiError.of('UNKNOWN_APPLICATION');
    await this.users.requireElevation(caller.userId, caller.sessionId, caller.elevationToken);
    return { token: await this.users.resetBotToken(app.bot_user_id) };
  }

  /** An icon's bytes, served to anyone as the platform's CDN does (`/app-icons/{id}/{hash}.{ext}`). */
  async icon(applicationId: string, hash: string): Promise<{ contentType: string; data: Buffer }> {
    const icon = await this.store.icon(applicationId, hash);
    if (!icon) throw ApiError.of('UNKNOWN_APPLICATION');
    return icon;
  }

  /** The records a guild's linked roles can require; the owner's and the bot's to read and replace. */
  async roleConnectionMetadata(userId: string, applicationId: string): Promise<unknown[]> {
    await this.ownedOrBot(userId, applicationId);
    return (await this.store.roleConnectionMetadata([applicationId])).get(applicationId) ?? [];
  }

  async setRoleConnectionMetadata(userId: string, applicationId: string, records: RoleConnectionRecord[]): Promise<unknown[]> {
    await this.ownedOrBot(userId, applicationId);
    await this.store.setRoleConnectionMetadata(applicationId, records);
    return records;
  }

  async commands(userId: string, applicationId: string, guildId: string | null) {
    await this.owned(userId, applicationId);
    return (await this.store.commands(applicationId, guildId)).map(commandView);
  }

  /** Registers a command (global, or a guild's); one of the same name and type is replaced. */
  async registerCommand(userId: string, applicationId: string, guildId: string | null, input: CommandInput) {
    await this.owned(userId, applicationId);
    const existing = await this.store.commands(applicationId, guildId);
    const same = existing.find((c) => c.name === input.name && c.type === input.type);
    if (!same && existing.length >= MAX_COMMANDS)
      throw ApiError.form({
        '': { code: 'MAX_COMMANDS', message: `Maximum number of application commands reached (${MAX_COMMANDS})` },
      });
    // The version changes with every write, as the platform's does.
    const version = this.ids.next();
    const command = await this.store.upsertCommand({
      id: same?.id ?? version,
      application_id: applicationId,
      guild_id: guildId,
      version,
      ...input,
    });
    return { created: !same, command: commandView(command) };
  }

  async deleteCommand(userId: string, applicationId: string, commandId: string): Promise<void> {
    await this.owned(userId, applicationId);
    if (!(await this.store.deleteCommand(applicationId, commandId)))
      throw new ApiError(404, { code: 10063, message: 'Unknown application command' });
  }

  /** The application if the caller owns it or is its bot (bot tokens manage their own application). */
  private async ownedOrBot(userId: string, applicationId: string): Promise<ApplicationRecord> {
    const app = await this.store.get(applicationId);
    if (!app) throw ApiError.of('UNKNOWN_APPLICATION');
    if (app.owner_id !== userId && app.bot_user_id !== userId) throw ApiError.of('MISSING_ACCESS');
    return app;
  }

  /** The application if the user owns it: 10002 when there is none, 50001 when it is someone else's. */
  private async owned(userId: string, applicationId: string): Promise<ApplicationRecord> {
    const app = await this.store.get(applicationId);
    if (!app) throw ApiError.of('UNKNOWN_APPLICATION');
    if (app.owner_id !== userId) throw ApiError.of('MISSING_ACCESS');
    return app;
  }

  private async render(app: ApplicationRecord) {
    const users = await this.users.users([app.owner_id, ...(app.bot_user_id ? [app.bot_user_id] : [])]);
    return applicationView(app, users);
  }
}
