import { ApiError, type ServiceImpl } from '@kith/platform';
import type { WebhooksService as WebhooksGrpcService } from '@kith/proto/webhooks/v1/webhooks';
import type { WebhooksService } from '../domain/webhooks.service.js';

const ID = /^[1-9]\d{0,18}$/;
const UNKNOWN_CHANNEL = 10003;

/** The gRPC service other services call: each handler one call into the domain. */
export function webhooksGrpc(webhooks: WebhooksService): ServiceImpl<typeof WebhooksGrpcService> {
  return {
    async deleteApplicationWebhooks({ guildId, applicationId }) {
      if (!ID.test(guildId) || !ID.test(applicationId)) return { deleted: 0 };
      return { deleted: await webhooks.applicationRemoved(guildId, applicationId) };
    },

    async createApplicationWebhook(req) {
      const ids = [req.userId, req.channelId, req.applicationId, ...(req.guildId ? [req.guildId] : [])];
      if (!ids.every((id) => ID.test(id)) || (req.applicationUserId !== '' && !ID.test(req.applicationUserId)))
        return { errorCode: UNKNOWN_CHANNEL };
      try {
        const view = await webhooks.createForApplication({
          userId: req.userId,
          channelId: req.channelId,
          guildId: req.guildId || undefined,
          applicationId: req.applicationId,
          name: req.name,
          avatar: req.avatar || null,
          applicationUserId: req.applicationUserId || null,
        });
        return {
          errorCode: 0,
          webhook: {
            id: view.id,
            type: view.type,
            guildId: view.guild_id,
            channelId: view.channel_id,
            name: view.name,
            avatar: view.avatar ?? '',
            applicationId: view.application_id ?? '',
            token: view.token ?? '',
            url: view.url ?? '',
          },
        };
      } catch (err) {
        // The platform's refusals travel as codes for the caller (integrations) to answer with.
        if (err instanceof ApiError) return { errorCode: err.body.code };
        throw err;
      }
    },
  };
}
