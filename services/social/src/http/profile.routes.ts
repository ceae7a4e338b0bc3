import type { Express } from 'express';
import { z } from 'zod';
import { parse, snowflakeField, userIdOf } from '@kith/platform';
import type { ProfileService } from '../domain/profile.service.js';
import { profileQuery } from './schemas.js';

const userParams = z.object({ user_id: snowflakeField });

/** Other users by id: `GET /users/{user.id}` and `GET /users/{user.id}/profile`. */
export function profileRoutes(app: Express, profiles: ProfileService): void {
  app.get('/users/:user_id', async (req, res) => {
    userIdOf(res);
    res.json(await profiles.user(parse(userParams, req.params).user_id));
  });

  app.get('/users/:user_id/profile', async (req, res) => {
    const { user_id } = parse(userParams, req.params);
    const query = parse(profileQuery, req.query);
    res.json(
      await profiles.profile(userIdOf(res), user_id, {
        withMutualGuilds: query.with_mutual_guilds,
        withMutualFriends: query.with_mutual_friends,
        withMutualFriendsCount: query.with_mutual_friends_count,
        guildId: query.guild_id,
      }),
    );
  });
}
