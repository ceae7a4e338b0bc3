import type { ServiceImpl } from '@kith/platform';
import type { WebhooksService as WebhooksGrpcService } from '@kith/proto/webhooks/v1/webhooks';
import type { WebhooksService } from '../domain/webhooks.service.js';

const ID = /^[1-9]\d{0,18}$/;

/** The gRPC service other services call: each handler one call into the domain. */
export function webhooksGrpc(webhooks: WebhooksService): ServiceImpl<typeof WebhooksGrpcService> {
  return {
    async deleteApplicationWebhooks({ guildId, applicationId }) {
      if (!ID.test(guildId) || !ID.test(applicationId)) return { deleted: 0 };
      return { deleted: await webhooks.applicationRemoved(guildId, applicationId) };
    },
  };
}
