import type { Kysely } from 'kysely';
import type { InvitesDatabase } from './schema.js';

/** The platform's application flag for activities that open in a voice channel. */
const EMBEDDED = 1n << 17n;

/** Which applications may be an invite's target (EMBEDDED_APPLICATION). */
export class PgApplications {
  constructor(private readonly db: Kysely<InvitesDatabase>) {}

  async isEmbedded(applicationId: string): Promise<boolean> {
    const row = await this.db.selectFrom('applications').select('flags').where('id', '=', applicationId).executeTakeFirst();
    return row !== undefined && (BigInt(row.flags) & EMBEDDED) !== 0n;
  }
}
