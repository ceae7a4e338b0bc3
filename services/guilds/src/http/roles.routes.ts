import type { Express } from 'express';
import { parse, userIdOf } from '@kith/platform';
import type { RoleSettings, RolesService } from '../domain/roles.service.js';
import { roleBody, roleParams, rolePositionsBody, guildIdOf, present } from './guilds.schemas.js';

/** A role's nullable fields: null clears them. */
const NULLABLE_ROLE_FIELDS = ['icon', 'unicode_emoji'];

/** Roles: listing, creating, reordering, editing and deleting. */
export function roleRoutes(app: Express, roles: RolesService): void {
  app.get('/guilds/:guild_id/roles', async (req, res) => {
    res.json(await roles.list(userIdOf(res), guildIdOf(req)));
  });

  app.post('/guilds/:guild_id/roles', async (req, res) => {
    const settings = present(parse(roleBody, req.body), NULLABLE_ROLE_FIELDS) as RoleSettings;
    res.json(await roles.create(userIdOf(res), guildIdOf(req), settings));
  });

  app.patch('/guilds/:guild_id/roles', async (req, res) => {
    const moves = parse(rolePositionsBody, req.body);
    res.json(await roles.reorder(userIdOf(res), guildIdOf(req), moves));
  });

  app.get('/guilds/:guild_id/roles/:role_id', async (req, res) => {
    const { guild_id, role_id } = parse(roleParams, req.params);
    res.json(await roles.get(userIdOf(res), guild_id, role_id));
  });

  app.patch('/guilds/:guild_id/roles/:role_id', async (req, res) => {
    const { guild_id, role_id } = parse(roleParams, req.params);
    const settings = present(parse(roleBody, req.body), NULLABLE_ROLE_FIELDS) as RoleSettings;
    res.json(await roles.update(userIdOf(res), guild_id, role_id, settings));
  });

  app.delete('/guilds/:guild_id/roles/:role_id', async (req, res) => {
    const { guild_id, role_id } = parse(roleParams, req.params);
    await roles.delete(userIdOf(res), guild_id, role_id);
    res.status(204).end();
  });
}
