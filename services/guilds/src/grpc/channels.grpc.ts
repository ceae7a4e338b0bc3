import type { ServiceImpl } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { GuildsDeps } from '../domain/deps.js';

/** GetChannel, AddRecipient, ListChannelViewerIds. */
export function channelsGrpc(_deps: GuildsDeps): Partial<ServiceImpl<typeof GuildsService>> {
  return {};
}
