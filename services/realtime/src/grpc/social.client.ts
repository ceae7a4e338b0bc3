import { relationshipView, type ServiceClient } from '@kith/platform';
import type { SocialService } from '@kith/proto/social/v1/social';
import type { SocialPort } from '../domain/ports.js';

const FRIENDS_PAGE = 1000;

/** social's gRPC contract as READY needs it, rendered by the platform's one rendering of a relationship. */
export class GrpcSocial implements SocialPort {
  constructor(private readonly client: ServiceClient<typeof SocialService>) {}

  /** Every friend of the user, a page at a time. */
  async friendIds(userId: string): Promise<string[]> {
    const ids: string[] = [];
    for (let after = ''; ;) {
      const { userIds } = await this.client.listFriendIds({ userId, after, limit: FRIENDS_PAGE });
      ids.push(...userIds);
      if (userIds.length < FRIENDS_PAGE) return ids;
      after = userIds.at(-1)!;
    }
  }

  async relationships(userId: string): Promise<unknown[]> {
    const { relationships } = await this.client.listRelationships({ userId });
    return relationships.map(relationshipView);
  }
}
