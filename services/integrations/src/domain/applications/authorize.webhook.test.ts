import { describe, expect, it } from 'vitest';
import { ApiError } from '@kith/platform';
import { application, servicesOver, World } from '../../../test/fakes/integrations.fake.js';
import type { ApplicationWebhookRequest, ApplicationWebhookView, WebhooksPort } from '../integrations/ports.js';

/** The webhooks service as a table: what it was asked to make, and the code it answers. */
class FakeWebhooks implements WebhooksPort {
  readonly made: ApplicationWebhookRequest[] = [];
  errorCode = 0;
  async deleteIntegrationWebhooks() {}
  async createApplicationWebhook(request: ApplicationWebhookRequest): Promise<{ errorCode: number; webhook?: ApplicationWebhookView }> {
    if (this.errorCode !== 0) return { errorCode: this.errorCode };
    this.made.push(request);
    const webhook = {
      id: '7000',
      type: 3,
      guild_id: '1',
      channel_id: request.channelId,
      name: request.name,
      avatar: request.avatar,
      application_id: request.applicationId,
      token: 't'.repeat(68),
      url: `http://edge/api/webhooks/7000/${'t'.repeat(68)}`,
    };
    return { errorCode: 0, webhook };
  }
}

function setup() {
  const world = new World();
  world.apps.set('500', application({ icon: 'appicon' }));
  const webhooks = new FakeWebhooks();
  const { authorize } = servicesOver(world, webhooks);
  return { webhooks, authorize };
}

const request = (webhookChannelId?: string) => ({
  clientId: '500',
  scopes: ['webhook.incoming'],
  integrationType: 0,
  authorize: true,
  webhookChannelId,
});

describe('AuthorizeService with webhook.incoming', () => {
  it('when a user authorizes it into a channel, then the application’s webhook is made there and shown without its token', async () => {
    const { webhooks, authorize } = setup();
    const answer = await authorize.authorize('100', request('55'));
    expect(webhooks.made).toEqual([
      {
        userId: '100',
        channelId: '55',
        guildId: undefined,
        applicationId: '500',
        name: 'App',
        avatar: 'appicon',
        applicationUserId: '900',
      },
    ]);
    expect(answer).toEqual({
      location: 'http://x/authorized',
      webhook: { id: '7000', type: 3, guild_id: '1', channel_id: '55', name: 'App', avatar: 'appicon', application_id: '500' },
    });
  });

  it('when no channel is named or the webhooks service refuses, then the platform’s errors', async () => {
    const { webhooks, authorize } = setup();
    const missing = await authorize.authorize('100', request()).catch((e: unknown) => e);
    expect((missing as ApiError).body).toMatchObject({
      code: 50035,
      errors: { webhook_channel_id: { _errors: [{ code: 'BASE_TYPE_REQUIRED' }] } },
    });
    for (const code of [50013, 10003, 30007]) {
      webhooks.errorCode = code;
      const refused = await authorize.authorize('100', request('55')).catch((e: unknown) => e);
      expect((refused as ApiError).body.code).toBe(code);
    }
    expect(webhooks.made).toEqual([]);
  });
});
