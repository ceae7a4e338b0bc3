import type { ServiceClient } from '@kith/platform';
import type { SocialService } from '@kith/proto/social/v1/social';
import type { SocialDirectory } from '../domain/ports.js';

const PAGE = 1000;
/** The platform's relationship type for a block. */
const BLOCKED = 2;

/** The social service over gRPC; its refusals arrive as the platform's errors, answered as they are. */
export class GrpcSocialDirectory implements SocialDirectory {
  constructor(private readonly social: ServiceClient<typeof SocialService>) {}

  async befriend(userId: string, inviterId: string): Promise<boolean> {
    return !(await this.social.acceptFriendInvite({ userId, inviterId })).alreadyFriends;
  }

  async blocks(userId: string, otherId: string): Promise<boolean> {
    return (await this.social.getRelationship({ userId, otherUserId: otherId })).type === BLOCKED;
  }

  async friendIds(userId: string): Promise<string[]> {
    const ids: string[] = [];
    let after = '';
    for (;;) {
      const { userIds } = await this.social.listFriendIds({ userId, after, limit: PAGE });
      ids.push(...userIds);
      if (userIds.length < PAGE) return ids;
      after = userIds[userIds.length - 1]!;
    }
  }
}
