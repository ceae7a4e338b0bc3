import { ApiError } from '@kith/platform';
import type { SettingsPort, StoredSettings, FriendSourceFlags } from './ports.js';

export interface SettingsChanges {
  locale?: string;
  theme?: 'dark' | 'light';
  friend_source_flags?: Partial<FriendSourceFlags>;
  friend_discovery_flags?: number;
}

/**
 * The account's (legacy JSON) user settings: what this service keeps of them. `all` implies the
 * narrower sources, as the platform's clients show it.
 */
export class SettingsService {
  constructor(private readonly store: SettingsPort) {}

  async get(userId: string) {
    const settings = await this.store.get(userId);
    if (!settings) throw ApiError.unauthorized();
    return settingsView(settings);
  }

  async update(userId: string, changes: SettingsChanges) {
    const current = await this.store.get(userId);
    if (!current) throw ApiError.unauthorized();
    const flags = changes.friend_source_flags ? normalise(changes.friend_source_flags) : undefined;
    const patch = {
      ...(changes.locale ? { locale: changes.locale } : {}),
      ...(changes.theme ? { theme: changes.theme } : {}),
      ...(flags ? { friend_source_flags: flags } : {}),
      ...(changes.friend_discovery_flags !== undefined ? { friend_discovery_flags: changes.friend_discovery_flags } : {}),
    };
    // Nothing to change (an empty body, or only fields this service does not keep): as they are.
    if (Object.keys(patch).length === 0) return settingsView(current);
    const updated = await this.store.update(userId, patch);
    if (!updated) throw ApiError.unauthorized();
    return settingsView(updated);
  }

  async friendSourceFlags(userId: string): Promise<FriendSourceFlags> {
    const settings = await this.store.get(userId);
    return settings ? normalise(settings.friend_source_flags) : { all: true, mutual_friends: true, mutual_guilds: true };
  }
}

function normalise(flags: Partial<FriendSourceFlags>): FriendSourceFlags {
  const all = flags.all === true;
  return { all, mutual_friends: all || flags.mutual_friends === true, mutual_guilds: all || flags.mutual_guilds === true };
}

/** The platform omits the narrower flags when `all` is set. */
function settingsView(settings: StoredSettings) {
  const flags = normalise(settings.friend_source_flags);
  return {
    locale: settings.locale,
    theme: settings.theme,
    friend_discovery_flags: settings.friend_discovery_flags ?? 0,
    friend_source_flags: flags.all ? { all: true } : { mutual_friends: flags.mutual_friends, mutual_guilds: flags.mutual_guilds },
  };
}
