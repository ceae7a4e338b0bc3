import { describe, expect, it } from 'vitest';
import { DevicesService, tokensOf, type DevicesPort, type PushRegistration, type PushToken } from './devices.service.js';

class FakeDevices implements DevicesPort {
  registered: { userId: string; sessionId: string; registrations: PushRegistration[] }[] = [];
  unregistered: { userId: string; tokens: PushToken[] }[] = [];
  live = true;
  async register(userId: string, sessionId: string, registrations: PushRegistration[]) {
    if (this.live) this.registered.push({ userId, sessionId, registrations });
    return this.live;
  }
  async unregister(userId: string, tokens: PushToken[]) {
    this.unregistered.push({ userId, tokens });
  }
  async listLive() {
    return [];
  }
}

describe('DevicesService', () => {
  it('when a device registers with its VoIP pair, then both tokens go to the session with the same options', async () => {
    const store = new FakeDevices();
    const service = new DevicesService(store);
    expect(
      await service.register('1', 's', { provider: 'apns', token: 't', voip_provider: 'apns_voip', voip_token: 'v', bundle_id: 'b' }),
    ).toBe(true);
    const common = { bundleId: 'b', bypassServerThrottling: false };
    expect(store.registered).toEqual([
      {
        userId: '1',
        sessionId: 's',
        registrations: [
          { provider: 'apns', token: 't', ...common },
          { provider: 'apns_voip', token: 'v', ...common },
        ],
      },
    ]);
  });

  it('when the session has ended, then the registration answers false', async () => {
    const store = new FakeDevices();
    store.live = false;
    expect(await new DevicesService(store).register('1', 's', { provider: 'gcm', token: 't' })).toBe(false);
  });

  it('when a body names no complete pair, then nothing is asked of the store', async () => {
    const store = new FakeDevices();
    await new DevicesService(store).unregister('1', tokensOf({ provider: 'gcm', voip_token: 'v' }));
    expect(store.unregistered).toEqual([]);
    expect(tokensOf({ provider: 'gcm', token: 't', voip_provider: 'apns_voip', voip_token: 'v' })).toEqual([
      { provider: 'gcm', token: 't' },
      { provider: 'apns_voip', token: 'v' },
    ]);
  });
});
