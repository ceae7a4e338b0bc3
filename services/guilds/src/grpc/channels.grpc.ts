import { ApiError, type ServiceImpl } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { isRowId } from '../domain/ids.js';
import { parseBits } from '../domain/permissions.js';
import type { GuildsDomain } from './guilds.grpc.js';

const MAX_PAGE = 1000;

/** GetChannel, AddRecipient, ListChannelViewerIds. */
export function channelsGrpc({ channels }: Pick<GuildsDomain, 'channels'>): Partial<ServiceImpl<typeof GuildsService>> {
  return {
    async getChannel({ channelId }) {
      const channel = isRowId(channelId) ? await channels.describe(channelId) : undefined;
      return channel ? { found: true, channel } : { found: false };
    },

    async addRecipient({ channelId, userId }) {
      if (!isRowId(channelId)) return { errorCode: 10003 };
      if (!isRowId(userId)) return { errorCode: 10013 };
      try {
        const { added, channel } = await channels.dms.addRecipient(null, channelId, userId);
        return { errorCode: 0, alreadyRecipient: !added, channel };
      } catch (err) {
        // The platform's refusals travel as codes for the caller (invites) to answer with.
        if (err instanceof ApiError) return { errorCode: err.body.code };
        throw err;
      }
    },

    async unarchiveThread({ threadId }) {
      if (!isRowId(threadId)) return { errorCode: 10003 };
      return { errorCode: await channels.threads.unarchiveForWebhook(threadId) };
    },

    async startWebhookThread({ parentId, threadId, name, appliedTags, ownerId }) {
      if (!isRowId(parentId) || !isRowId(threadId) || !isRowId(ownerId) || !appliedTags.every(isRowId)) return { errorCode: 10003 };
      const started = await channels.threads.startForWebhook({ parentId, threadId, name: name.slice(0, 100), appliedTags, ownerId });
      if (started.errorCode !== 0) return { errorCode: started.errorCode };
      const thread = await channels.describe(started.threadId!);
      return thread ? { errorCode: 0, thread } : { errorCode: 10003 };
    },

    async listChannelViewerIds({ channelId, after, limit, required }) {
      const bits = required === '' ? 0n : parseBits(required);
      if (bits === undefined)
        throw ApiError.form({ required: { code: 'NUMBER_TYPE_COERCE', message: 'Value is not a permission bitfield.' } });
      const { ids, wholeGuild } = isRowId(channelId) ? await channels.viewers(channelId, bits) : { ids: [], wholeGuild: false };
      const page = Math.min(Math.max(limit || 100, 1), MAX_PAGE);
      const from = isRowId(after) ? BigInt(after) : -1n;
      return { userIds: ids.filter((id) => BigInt(id) > from).slice(0, page), wholeGuild };
    },
  };
}
