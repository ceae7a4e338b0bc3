import type { ServiceClient } from '@kith/platform';
import type { SocialService } from '@kith/proto/social/v1/social';
import type { SocialPort } from '../domain/ports.js';

/** social's gRPC contract as READY needs it. */
export class GrpcSocial implements SocialPort {
  constructor(private readonly client: ServiceClient<typeof SocialService>) {}

  async relationships(userId: string): Promise<unknown[]> {
    const { relationshipsJson } = await this.client.listRelationships({ userId });
    return JSON.parse(relationshipsJson) as unknown[];
  }
}
