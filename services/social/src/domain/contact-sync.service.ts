import { createHash, randomBytes } from 'node:crypto';
import { ApiError } from '@kith/platform';
import type { RelationshipsService } from './relationships.service.js';

/** Single-use tokens naming the users a contact sync found; stored only as hashes. */
export interface ContactSyncTokens {
  insert(hash: Buffer, userId: string, userIds: string[], expiresAt: Date): Promise<void>;
  /** Marks the token used and returns the ids it covers, if it is the user's, unused and fresh. */
  consume(hash: Buffer, userId: string): Promise<string[] | undefined>;
}

const TOKEN_TTL_MS = 24 * 3600_000;
const hash = (token: string): Buffer => createHash('sha256').update(token).digest();

export class ContactSyncService {
  constructor(
    private readonly tokens: ContactSyncTokens,
    private readonly relationships: RelationshipsService,
  ) {}

  /** Issued over gRPC to whoever synced the user's contacts. */
  async issue(userId: string, userIds: string[]): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.tokens.insert(hash(token), userId, [...new Set(userIds)], new Date(Date.now() + TOKEN_TTL_MS));
    return token;
  }

  /** Sends a request to each covered id; any id the token does not cover, or that refuses, fails. */
  async bulkAdd(userId: string, userIds: string[], token: string) {
    const covered = await this.tokens.consume(hash(token), userId);
    if (!covered) throw ApiError.form({ token: { code: 'CONTACT_SYNC_TOKEN_INVALID', message: 'Invalid contact sync token.' } });
    const allowed = new Set(covered);
    const successful: string[] = [];
    const failed: string[] = [];
    for (const id of [...new Set(userIds)]) {
      if (!allowed.has(id)) {
        failed.push(id);
        continue;
      }
      try {
        await this.relationships.requestOrAcceptById(userId, id, {});
        successful.push(id);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        failed.push(id);
      }
    }
    return { successful_requests: successful, failed_requests: failed };
  }
}
