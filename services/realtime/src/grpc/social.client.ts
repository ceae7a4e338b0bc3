import { relationshipView, type ServiceClient } from '@kith/platform';
import type { SocialService } from '@kith/proto/social/v1/social';
import type { SocialPort } from '../domain/ports.js';

/** social's gRPC contract as READY needs it, rendered by the platform's one rendering of a relationship. */
export class GrpcSocial implements SocialPort {
  constructor(private readonly client: ServiceClient<typeof SocialService>) {}

  async relationships(userId: string): Promise<unknown[]> {
    const { relationships } = await this.client.listRelationships({ userId });
    return relationships.map(relationshipView);
  }
}
