import type { Express } from 'express';
import type { GuildsDeps } from '../domain/deps.js';

/** Guilds, roles, members and bans. */
export function guildRoutes(_app: Express, _deps: GuildsDeps): void {}
