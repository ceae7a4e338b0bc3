import type { Express } from 'express';
import type { GuildsDeps } from '../domain/deps.js';

/** Guild channels, threads, permission overwrites, DMs and group DMs. */
export function channelRoutes(_app: Express, _deps: GuildsDeps): void {}
