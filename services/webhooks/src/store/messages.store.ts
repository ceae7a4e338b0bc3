import { OUTBOX_CHANNEL, databasePool, sql, type DomainEvent, type Outbox } from '@kith/platform';
import type { Kysely, Selectable } from 'kysely';
import type { MessageStore } from '../domain/ports.js';
import type { WebhookRecord } from '../domain/webhook.types.js';
import { attachmentKeys, type AttachmentView, type MessageRecord } from '../domain/message.types.js';
import { queueObjectDeletions } from './object-deletions.store.js';
import type { MessagesTable, WebhooksDatabase } from './schema.js';

const toRecord = (r: Selectable<MessagesTable>): MessageRecord => ({
  id: r.id,
  webhookId: r.webhook_id,
  guildId: r.guild_id,
  channelId: r.channel_id,
  parentChannelId: r.parent_channel_id,
  applicationId: r.application_id,
  authorName: r.author_name,
  authorAvatar: r.author_avatar,
  avatarUrl: r.avatar_url,
  content: r.content,
  tts: r.tts,
  flags: r.flags,
  embeds: r.embeds,
  attachments: r.attachments as AttachmentView[],
  components: r.components,
  mentions: r.mentions,
  mentionRoles: r.mention_roles,
  mentionEveryone: r.mention_everyone,
  poll: r.poll,
  createdAt: r.created_at,
  editedAt: r.edited_at,
});

const toRow = (m: MessageRecord) => ({
  id: m.id,
  webhook_id: m.webhookId,
  guild_id: m.guildId,
  channel_id: m.channelId,
  parent_channel_id: m.parentChannelId,
  application_id: m.applicationId,
  author_name: m.authorName,
  author_avatar: m.authorAvatar,
  avatar_url: m.avatarUrl,
  content: m.content,
  tts: m.tts,
  flags: m.flags,
  embeds: JSON.stringify(m.embeds),
  attachments: JSON.stringify(m.attachments),
  components: JSON.stringify(m.components),
  mentions: JSON.stringify(m.mentions),
  mention_roles: JSON.stringify(m.mentionRoles),
  mention_everyone: m.mentionEveryone,
  poll: m.poll === null ? null : JSON.stringify(m.poll),
  created_at: m.createdAt,
  edited_at: m.editedAt,
});

const MESSAGE_COLUMNS = [
  'id',
  'webhook_id',
  'guild_id',
  'channel_id',
  'parent_channel_id',
  'application_id',
  'author_name',
  'author_avatar',
  'avatar_url',
  'content',
  'tts',
  'flags',
  'embeds',
  'attachments',
  'components',
  'mentions',
  'mention_roles',
  'mention_everyone',
  'poll',
  'created_at',
  'edited_at',
].join(', ');

/** Webhook messages in PostgreSQL, each change with its event (outbox) and the files it frees (object_deletions). */
export class PgMessageStore implements MessageStore {
  constructor(
    private readonly db: Kysely<WebhooksDatabase>,
    private readonly outbox: Pick<Outbox, 'enqueue' | 'insertWhen'>,
    /** Told after a commit that queued files for removal (the sweeper starts at once). */
    private readonly filesQueued: () => void = () => undefined,
  ) {}

  /**
   * One statement, which commits on its own: the webhook's row as it was read, key-share locked
   * (a deletion of the webhook waits for it, and then removes this message with the others), the
   * message only if that row is there, its events only if the message is.
   */
  async insert(m: MessageRecord, events: DomainEvent[], w: WebhookRecord): Promise<boolean> {
    const statement = sql`WITH current AS (
        SELECT 1 FROM webhooks WHERE id = ${w.id} AND token_digest = ${w.tokenDigest} AND type = ${w.type}
          AND channel_id = ${w.channelId} AND guild_id = ${w.guildId} AND name = ${w.name}
          AND avatar IS NOT DISTINCT FROM ${w.avatar}::text AND application_id IS NOT DISTINCT FROM ${w.applicationId}::bigint
        FOR KEY SHARE),
      message AS (INSERT INTO messages (${sql.raw(MESSAGE_COLUMNS)})
        SELECT ${m.id}::bigint, ${m.webhookId}::bigint, ${m.guildId}::bigint, ${m.channelId}::bigint, ${m.parentChannelId}::bigint,
          ${m.applicationId}::bigint, ${m.authorName}::text, ${m.authorAvatar}::text, ${m.avatarUrl}::text, ${m.content}::text,
          ${m.tts}::boolean, ${m.flags}::integer, ${JSON.stringify(m.embeds)}::jsonb, ${JSON.stringify(m.attachments)}::jsonb,
          ${JSON.stringify(m.components)}::jsonb, ${JSON.stringify(m.mentions)}::jsonb, ${JSON.stringify(m.mentionRoles)}::jsonb,
          ${m.mentionEveryone}::boolean, ${m.poll === null ? null : JSON.stringify(m.poll)}::jsonb, ${m.createdAt}::timestamptz,
          ${m.editedAt}::timestamptz
        FROM current RETURNING 1),
      inserted AS (${this.outbox.insertWhen(events, sql`EXISTS (SELECT 1 FROM message)`)})
      SELECT pg_notify(${OUTBOX_CHANNEL}, '') FROM (SELECT 1 FROM inserted LIMIT 1) AS one`;
    const compiled = statement.compile(this.db);
    // A named statement: each connection parses and plans it once, not on every execution. Its
    // text depends only on how many events there are.
    const pool = databasePool(this.db);
    const { rows } = pool
      ? await pool.query({ name: `webhooks_insert_message_${events.length}`, text: compiled.sql, values: [...compiled.parameters] })
      : await this.db.executeQuery(compiled);
    return rows.length > 0;
  }

  async get(webhookId: string, messageId: string): Promise<MessageRecord | undefined> {
    const row = await this.db
      .selectFrom('messages')
      .selectAll()
      .where('id', '=', messageId)
      .where('webhook_id', '=', webhookId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async update(message: MessageRecord, events: DomainEvent[], dropped: AttachmentView[]): Promise<void> {
    const keys = attachmentKeys(dropped);
    await this.db.transaction().execute(async (trx) => {
      const { id, webhook_id, ...changes } = toRow(message);
      await trx.updateTable('messages').set(changes).where('id', '=', id).where('webhook_id', '=', webhook_id).execute();
      await queueObjectDeletions(trx, keys);
      await this.outbox.enqueue(trx, events);
    });
    if (keys.length > 0) this.filesQueued();
  }

  async delete(webhookId: string, messageId: string, events: (gone: MessageRecord) => DomainEvent[]): Promise<MessageRecord | undefined> {
    const gone = await this.db.transaction().execute(async (trx) => {
      const row = await trx
        .deleteFrom('messages')
        .where('id', '=', messageId)
        .where('webhook_id', '=', webhookId)
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      const record = toRecord(row);
      await queueObjectDeletions(trx, attachmentKeys(record.attachments));
      await this.outbox.enqueue(trx, events(record));
      return record;
    });
    if (gone && gone.attachments.length > 0) this.filesQueued();
    return gone;
  }
}
