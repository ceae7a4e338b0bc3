import { sql, type DomainEvent, type Outbox } from '@kith/platform';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { WebhookChanges, WebhookLimits, WebhookStore } from '../domain/ports.js';
import type { WebhookRecord, WebhookType } from '../domain/webhook.types.js';
import { deleteMessagesWithFiles } from './object-deletions.store.js';
import type { WebhooksDatabase, WebhooksTable } from './schema.js';

type Tx = Transaction<WebhooksDatabase>;

const toRecord = (r: Selectable<WebhooksTable>): WebhookRecord => ({
  id: r.id,
  type: r.type as WebhookType,
  guildId: r.guild_id,
  channelId: r.channel_id,
  userId: r.user_id,
  name: r.name,
  avatar: r.avatar,
  applicationId: r.application_id,
  applicationUserId: r.application_user_id,
  tokenDigest: r.token_digest,
  tokenSealed: r.token_sealed,
  sourceGuild: r.source_guild,
  sourceChannel: r.source_channel,
});

/**
 * Webhooks in PostgreSQL; every change commits with its events (outbox). Removing webhooks
 * removes their messages and queues the messages' files for removal (object_deletions).
 */
export class PgWebhookStore implements WebhookStore {
  constructor(
    private readonly db: Kysely<WebhooksDatabase>,
    private readonly outbox: Pick<Outbox, 'enqueue'>,
    /** Told after a commit that may have queued files for removal (the sweeper starts at once). */
    private readonly filesQueued: () => void = () => undefined,
  ) {}

  async byId(id: string): Promise<WebhookRecord | undefined> {
    const row = await this.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  async byChannel(channelId: string): Promise<WebhookRecord[]> {
    return (await this.db.selectFrom('webhooks').selectAll().where('channel_id', '=', channelId).orderBy('id').execute()).map(toRecord);
  }

  async byGuild(guildId: string): Promise<WebhookRecord[]> {
    return (await this.db.selectFrom('webhooks').selectAll().where('guild_id', '=', guildId).orderBy('id').execute()).map(toRecord);
  }

  create(w: WebhookRecord, limits: WebhookLimits, events: DomainEvent[]): Promise<'created' | 'channel_full' | 'guild_full'> {
    return this.db.transaction().execute(async (trx) => {
      const full = await this.fullness(trx, w.guildId, w.channelId, limits);
      if (full) return full;
      await trx
        .insertInto('webhooks')
        .values({
          id: w.id,
          type: w.type,
          guild_id: w.guildId,
          channel_id: w.channelId,
          user_id: w.userId,
          name: w.name,
          avatar: w.avatar,
          application_id: w.applicationId,
          application_user_id: w.applicationUserId ?? null,
          token_digest: w.tokenDigest,
          token_sealed: w.tokenSealed,
          source_guild: w.sourceGuild === null ? null : JSON.stringify(w.sourceGuild),
          source_channel: w.sourceChannel === null ? null : JSON.stringify(w.sourceChannel),
        })
        .execute();
      await this.outbox.enqueue(trx, events);
      return 'created';
    });
  }

  update(
    id: string,
    changes: WebhookChanges,
    limits: WebhookLimits,
    events: (updated: WebhookRecord) => DomainEvent[],
  ): Promise<WebhookRecord | 'gone' | 'channel_full'> {
    return this.db.transaction().execute(async (trx) => {
      const current = await trx.selectFrom('webhooks').select(['guild_id']).where('id', '=', id).executeTakeFirst();
      if (!current) return 'gone';
      if (changes.channelId) {
        // Counted against the channel only: a move within the guild leaves its count as it was.
        const full = await this.fullness(trx, current.guild_id, changes.channelId, { ...limits, perGuild: Number.MAX_SAFE_INTEGER });
        if (full) return 'channel_full';
      }
      const row = await trx
        .updateTable('webhooks')
        .set({
          ...(changes.name !== undefined ? { name: changes.name } : {}),
          ...(changes.avatar !== undefined ? { avatar: changes.avatar } : {}),
          ...(changes.channelId !== undefined ? { channel_id: changes.channelId } : {}),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      if (!row) return 'gone';
      const updated = toRecord(row);
      await this.outbox.enqueue(trx, events(updated));
      return updated;
    });
  }

  async delete(id: string, events: (deleted: WebhookRecord) => DomainEvent[]): Promise<WebhookRecord | undefined> {
    const deleted = await this.db.transaction().execute(async (trx) => {
      const row = await trx.deleteFrom('webhooks').where('id', '=', id).returningAll().executeTakeFirst();
      if (!row) return undefined;
      await deleteMessagesWithFiles(trx, sql`webhook_id = ${id}`);
      const record = toRecord(row);
      await this.outbox.enqueue(trx, events(record));
      return record;
    });
    this.filesQueued();
    return deleted;
  }

  async deleteByChannel(channelId: string): Promise<number> {
    const gone = await this.db.transaction().execute(async (trx) => {
      const rows = await trx.deleteFrom('webhooks').where('channel_id', '=', channelId).returning('id').execute();
      await deleteMessagesWithFiles(trx, sql`parent_channel_id = ${channelId}`);
      return rows.length;
    });
    this.filesQueued();
    return gone;
  }

  async deleteByGuild(guildId: string): Promise<number> {
    const gone = await this.db.transaction().execute(async (trx) => {
      const rows = await trx.deleteFrom('webhooks').where('guild_id', '=', guildId).returning('id').execute();
      await deleteMessagesWithFiles(trx, sql`guild_id = ${guildId}`);
      return rows.length;
    });
    this.filesQueued();
    return gone;
  }

  async deleteByApplication(
    guildId: string,
    applicationId: string,
    events: (channelIds: string[]) => Promise<DomainEvent[]>,
  ): Promise<number> {
    const removed = await this.db.transaction().execute(async (trx) => {
      const gone = await trx
        .deleteFrom('webhooks')
        .where('guild_id', '=', guildId)
        .where('application_id', '=', applicationId)
        .returning(['id', 'channel_id'])
        .execute();
      if (gone.length === 0) return 0;
      await deleteMessagesWithFiles(trx, sql`webhook_id = ANY(${gone.map((w) => w.id)}::bigint[])`);
      await this.outbox.enqueue(trx, await events([...new Set(gone.map((w) => w.channel_id))]));
      return gone.length;
    });
    if (removed > 0) this.filesQueued();
    return removed;
  }

  async saveAvatar(hash: string, contentType: string, data: Buffer): Promise<void> {
    await this.db
      .insertInto('avatars')
      .values({ hash, content_type: contentType, data })
      .onConflict((oc) => oc.column('hash').doNothing())
      .execute();
  }

  /**
   * Whether the channel or the guild is at its limit. The guild's advisory lock serialises every
   * creation and move in it, so concurrent requests count one after another and none overshoots.
   */
  private async fullness(
    trx: Tx,
    guildId: string,
    channelId: string,
    limits: WebhookLimits,
  ): Promise<'channel_full' | 'guild_full' | undefined> {
    await sql`SELECT pg_advisory_xact_lock(${guildId}::bigint)`.execute(trx);
    const counts = await trx
      .selectFrom('webhooks')
      .select([sql<string>`count(*) FILTER (WHERE channel_id = ${channelId})`.as('in_channel'), sql<string>`count(*)`.as('in_guild')])
      .where('guild_id', '=', guildId)
      .executeTakeFirstOrThrow();
    if (Number(counts.in_channel) >= limits.perChannel) return 'channel_full';
    if (Number(counts.in_guild) >= limits.perGuild) return 'guild_full';
    return undefined;
  }
}
