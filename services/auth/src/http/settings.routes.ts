import type { Express } from 'express';
import { z } from 'zod';
import { parse, userIdOf } from '@kith/platform';
import type { SettingsService } from '../domain/settings.service.js';

const settingsBody = z.object({
  locale: z.string().min(2).max(16).optional(),
  theme: z.enum(['dark', 'light']).optional(),
  friend_source_flags: z
    .object({ all: z.boolean().optional(), mutual_friends: z.boolean().optional(), mutual_guilds: z.boolean().optional() })
    .optional(),
  // FIND_BY_PHONE (2) and FIND_BY_EMAIL (4); other bits are kept as the client sent them.
  friend_discovery_flags: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
});

export function settingsRoutes(app: Express, settings: SettingsService): void {
  app.get('/users/@me/settings', async (_req, res) => {
    res.json(await settings.get(userIdOf(res)));
  });

  app.patch('/users/@me/settings', async (req, res) => {
    res.json(await settings.update(userIdOf(res), parse(settingsBody, req.body)));
  });
}
