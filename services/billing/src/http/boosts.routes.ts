import type { Express } from 'express';
import { isSnowflake, parse, partialUserView, userIdOf, ApiError } from '@kith/platform';
import { boostView, type Boost, type BoostsService } from '../domain/boosts.service.js';
import { billingError } from '../domain/errors.js';
import { slotView } from '../domain/views.js';
import { appliedQuery, applyBoostsBody, guildBoostsQuery } from './schemas.js';

/** Looks users up to show them on boosts. */
export type UsersById = (ids: string[]) => Promise<Map<string, Parameters<typeof partialUserView>[0]>>;

/** Boost slots under /users/@me/guilds/premium, and boosts applied to a guild under /guilds/{id}/premium. */
export function boostRoutes(app: Express, boosts: BoostsService, users: UsersById, afterChange: () => Promise<void>): void {
  const withUsers = async (list: Boost[]) => {
    const found = await users(list.map((b) => b.user_id));
    return list.map((b) => boostView(b, userOf(found, b.user_id)));
  };

  app.get('/users/@me/guilds/premium/subscriptions/cooldown', async (_req, res) => {
    const c = await boosts.cooldown(userIdOf(res));
    res.json({ ends_at: c.ends_at.toISOString(), limit: c.limit, remaining: c.remaining });
  });

  app.get('/users/@me/guilds/premium/subscriptions', async (req, res) => {
    const userId = userIdOf(res);
    const { paused } = parse(appliedQuery, req.query);
    res.json(await withUsers(await boosts.applied(userId, paused ?? false)));
  });

  app.get('/users/@me/guilds/premium/subscription-slots', async (_req, res) => {
    const userId = userIdOf(res);
    const slots = await boosts.slots(userId);
    const found = await users(slots.some((s) => s.boost) ? [userId] : []);
    res.json(slots.map((s) => slotView(s, userOf(found, userId), s.pause_ends_at)));
  });

  for (const [action, canceled] of [
    ['cancel', true],
    ['uncancel', false],
  ] as const)
    app.post(`/users/@me/guilds/premium/subscription-slots/:slot/${action}`, async (req, res) => {
      const userId = userIdOf(res);
      if (!isSnowflake(req.params.slot)) throw billingError('UNKNOWN_SLOT');
      const slot = await boosts.setCanceled(userId, req.params.slot, canceled);
      res.json(slotView(slot, undefined, slot.pause_ends_at));
    });

  app.get('/guilds/:guild/premium/subscriptions', async (req, res) => {
    const userId = userIdOf(res);
    parse(guildBoostsQuery, req.query);
    res.json(await withUsers(await boosts.ofGuild(userId, guildId(req.params.guild))));
  });

  app.put('/guilds/:guild/premium/subscriptions', async (req, res) => {
    const userId = userIdOf(res);
    const guild = guildId(req.params.guild);
    const body = parse(applyBoostsBody, req.body);
    const applied = await boosts.apply(userId, guild, body.user_premium_guild_subscription_slot_ids).finally(afterChange);
    res.json(await withUsers(applied));
  });

  app.delete('/guilds/:guild/premium/subscriptions/:boost', async (req, res) => {
    const userId = userIdOf(res);
    const guild = guildId(req.params.guild);
    if (!isSnowflake(req.params.boost)) throw billingError('UNKNOWN_SLOT');
    await boosts.remove(userId, guild, req.params.boost).finally(afterChange);
    res.status(204).end();
  });
}

function guildId(value: string): string {
  if (!isSnowflake(value)) throw ApiError.of('UNKNOWN_GUILD');
  return value;
}

function userOf(found: Map<string, Parameters<typeof partialUserView>[0]>, id: string) {
  const user = found.get(id);
  return user ? partialUserView(user) : undefined;
}
