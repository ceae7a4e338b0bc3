import type { Express } from 'express';
import { ApiError, parse, userIdOf } from '@kith/platform';
import { tokensOf, type DevicesService } from '../domain/devices.service.js';
import { sessionIdOf } from './auth.routes.js';
import { registerDeviceBody, unregisterDeviceBody } from './schemas.js';

/** Register Device and Unregister Device (userdoccers `topics/push-notifications`). */
export function devicesRoutes(app: Express, devices: DevicesService): void {
  app.post('/users/@me/devices', async (req, res) => {
    const userId = userIdOf(res);
    const body = parse(registerDeviceBody, req.body);
    // The session ended while the request was on its way: it has nobody left to push to.
    if (!(await devices.register(userId, sessionIdOf(res), body))) throw ApiError.unauthorized();
    res.status(204).end();
  });

  app.delete('/users/@me/devices', async (req, res) => {
    const userId = userIdOf(res);
    await devices.unregister(userId, tokensOf(parse(unregisterDeviceBody, req.body)));
    res.status(204).end();
  });
}
