import { describe, expect, it } from 'vitest';
import { application, servicesOver, World } from '../../../test/fakes/integrations.fake.js';

function setup() {
  const world = new World();
  world.apps.set('500', application());
  const { integrations, authorize } = servicesOver(world);
  world.member('1', '100', true);
  world.member('1', '101', false);
  return { world, integrations, authorize };
}

const request = (guildId?: string, scopes = ['bot', 'applications.commands']) => ({
  clientId: '500',
  scopes,
  integrationType: 0,
  authorize: true,
  guildId,
});

describe('AuthorizeService', () => {
  it('when a manager installs the bot, then the bot joins before the integration and its events commit together', async () => {
    const { world, authorize } = setup();
    await authorize.authorize('100', request('1'));
    expect(world.calls).toEqual(['addMember 1 900', 'commit GUILD_INTEGRATIONS_UPDATE,INTEGRATION_CREATE']);
    expect([...world.rows.values()][0]).toMatchObject({
      type: 'discord',
      guild_id: '1',
      scopes: ['applications.commands', 'bot'],
      user_id: '100',
    });
  });

  it('when the bot is banned, not a member or not a manager, then nothing is written', async () => {
    const { world, authorize } = setup();
    world.joinError = 40007;
    await expect(authorize.authorize('100', request('1'))).rejects.toMatchObject({ body: { code: 40007 } });
    await expect(authorize.authorize('101', request('1'))).rejects.toMatchObject({ body: { code: 50013 } });
    await expect(authorize.authorize('102', request('1'))).rejects.toMatchObject({ body: { code: 10004 } });
    expect(world.rows.size).toBe(0);
  });

  it('when a private bot is added by someone other than its owner, then 50001', async () => {
    const { world, authorize } = setup();
    world.apps.set('500', application({ bot_public: false, owner_id: '999' }));
    await expect(authorize.authorize('100', request('1'))).rejects.toMatchObject({ body: { code: 50001 } });
  });

  it('when only user scopes are granted, then the authorization is recorded here and with social, and no guild is touched', async () => {
    const { world, authorize } = setup();
    await authorize.authorize('100', request(undefined, ['identify']));
    expect(world.calls).toEqual(['authorization 100 500', 'social 100 500']);
  });
});

describe('IntegrationsService.delete', () => {
  it('when an app integration is deleted, then the bot is removed first and the deletion and its events commit after', async () => {
    const { world, authorize, integrations } = setup();
    await authorize.authorize('100', request('1'));
    const [row] = world.rows.values();
    world.calls.length = 0;
    await integrations.delete('100', '1', row!.id);
    expect(world.calls).toEqual(['removeMember 1 900', 'commit GUILD_INTEGRATIONS_UPDATE,INTEGRATION_DELETE']);
    expect(world.rows.size).toBe(0);
  });

  it('when the integration is another guild’s or unknown, then 10005 and nothing happens', async () => {
    const { world, authorize, integrations } = setup();
    world.member('2', '100', true);
    await authorize.authorize('100', request('1'));
    const [row] = world.rows.values();
    world.calls.length = 0;
    await expect(integrations.delete('100', '2', row!.id)).rejects.toMatchObject({ body: { code: 10005 } });
    await expect(integrations.delete('100', '1', '77')).rejects.toMatchObject({ body: { code: 10005 } });
    expect(world.calls).toEqual([]);
  });
});
