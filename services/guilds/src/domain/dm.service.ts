import {
  ApiError,
  channelView,
  userView,
  type ChannelData,
  type ContractUser,
  type DomainEvent,
  type Outbox,
  type ServiceClient,
} from '@kith/platform';
import type { AuthService } from '@kith/proto/auth/v1/auth';
import { ChannelType, type ChannelRow } from '../store/access.store.js';
import type { PgChannelStore } from '../store/channel.store.js';
import type { PgDmStore } from '../store/dm.store.js';
import { compareIds } from './channel.audience.js';
import { guildErrors } from './guild.errors.js';
import type { Trx } from './channel.events.js';
import type { OpenPrivateInput } from './channel.input.js';
import { toChannel } from './channel.view.js';
import { usersById } from './user.directory.js';

/** A group DM holds at most this many users, its owner included. */
export const MAX_GROUP_DM_RECIPIENTS = 10;

/**
 * DMs (one channel per pair of users, reused) and group DMs. Private channel events go to each
 * user concerned separately: each sees the recipients without themself.
 */
export class DmService {
  constructor(
    private readonly channels: PgChannelStore,
    private readonly store: PgDmStore,
    private readonly auth: ServiceClient<typeof AuthService>,
    private readonly outbox: Outbox,
  ) {}

  /** The channel with every participant and the users auth knows of them. */
  async describe(row: ChannelRow, db = this.channels.db): Promise<ChannelData> {
    const ids = await this.store.participantIds(db, row);
    return toChannel(row, [], ids, await usersById(this.auth, ids));
  }

  /** The channel as `viewerId` sees it (recipients without the viewer). */
  async render(row: ChannelRow, viewerId: string, db = this.channels.db): Promise<Record<string, unknown>> {
    return channelView(await this.describe(row, db), viewerId);
  }

  private renderWith(row: ChannelRow, ids: readonly string[], users: ReadonlyMap<string, ContractUser>, viewerId: string) {
    return channelView(toChannel(row, [], ids, users), viewerId);
  }

  async open(userId: string, input: OpenPrivateInput): Promise<Record<string, unknown>> {
    if (input.recipient_id != null) return this.openDm(userId, input.recipient_id);
    const recipients = input.recipients ?? [];
    if (recipients.length === 1 && recipients[0] !== userId) return this.openDm(userId, recipients[0]!);
    return this.createGroup(userId, recipients);
  }

  private async openDm(userId: string, otherId: string): Promise<Record<string, unknown>> {
    if (otherId === userId) throw guildErrors.cannotMessageUser();
    await this.requireUsers([otherId]);
    const [low, high] = [userId, otherId].sort(compareIds) as [string, string];
    return this.channels.transaction(async (trx) => {
      await this.store.lockPair(trx, low, high);
      const existing = await this.store.findPair(trx, low, high);
      const row = existing
        ? (await this.channels.get(trx, existing))!
        : await this.channels.insert(trx, { id: this.channels.newId(), type: ChannelType.DM });
      if (!existing) {
        await this.store.insertPair(trx, low, high, row.id);
        await this.store.addRecipient(trx, row.id, low);
        await this.store.addRecipient(trx, row.id, high);
      }
      const opened = !existing || (await this.store.reopen(trx, row.id, userId));
      const rendered = await this.render(row, userId, trx);
      // Only the caller's list changes; the other user sees the DM once a message arrives.
      if (opened) await this.emit(trx, [{ name: 'CHANNEL_CREATE', audience: { users: [userId] }, data: rendered }]);
      return rendered;
    });
  }

  private async createGroup(ownerId: string, recipients: readonly string[]): Promise<Record<string, unknown>> {
    const ids = [ownerId, ...new Set(recipients.filter((id) => id !== ownerId))];
    if (ids.length > MAX_GROUP_DM_RECIPIENTS) throw guildErrors.maxRecipients();
    const users = await this.requireUsers(ids);
    return this.channels.transaction(async (trx) => {
      const row = await this.channels.insert(trx, { id: this.channels.newId(), type: ChannelType.GROUP_DM, owner_id: ownerId });
      for (const id of ids) await this.store.addRecipient(trx, row.id, id);
      await this.emit(
        trx,
        ids.map((id) => ({ name: 'CHANNEL_CREATE', audience: { users: [id] }, data: this.renderWith(row, ids, users, id) })),
      );
      return this.renderWith(row, ids, users, ownerId);
    });
  }

  /** The caller's open private channels (GET /users/@me/channels and READY), every participant named. */
  async listOpen(userId: string): Promise<ChannelData[]> {
    const rows = await this.store.listOpen(this.channels.db, userId);
    const participants = await Promise.all(rows.map((row) => this.store.participantIds(this.channels.db, row)));
    const users = await usersById(this.auth, participants.flat());
    return rows.map((row, i) => toChannel(row, [], participants[i]!, users));
  }

  /** GET /users/@me/channels: the open private channels, recipients without the caller. */
  async list(userId: string): Promise<Record<string, unknown>[]> {
    return (await this.listOpen(userId)).map((channel) => channelView(channel, userId));
  }

  /**
   * Adds a user to a group DM: by a recipient (`actorId`), or through an invite (null). 10003
   * unknown, 50001 not a group DM, 30004 full. False when the user already was a recipient.
   */
  async addRecipient(actorId: string | null, channelId: string, userId: string): Promise<{ added: boolean; channel: ChannelData }> {
    await this.requireUsers([userId]);
    return this.channels.transaction(async (trx) => {
      const row = await this.channels.get(trx, channelId, true);
      const ids = row ? await this.store.participantIds(trx, row) : [];
      if (!row || row.guild_id !== null || (actorId !== null && !ids.includes(actorId))) throw ApiError.of('UNKNOWN_CHANNEL');
      if (row.type !== ChannelType.GROUP_DM) throw ApiError.of('MISSING_ACCESS');
      if (ids.includes(userId)) return { added: false, channel: await this.describe(row, trx) };
      if (ids.length >= MAX_GROUP_DM_RECIPIENTS) throw guildErrors.maxRecipients();
      await this.store.addRecipient(trx, row.id, userId);
      const all = [...ids, userId];
      const users = await usersById(this.auth, all);
      const channel = toChannel(row, [], all, users);
      await this.emit(trx, [
        { name: 'CHANNEL_CREATE', audience: { users: [userId] }, data: channelView(channel, userId) },
        {
          name: 'CHANNEL_RECIPIENT_ADD',
          audience: { users: ids },
          data: { channel_id: row.id, user: userView(userId, users.get(userId)) },
        },
      ]);
      return { added: true, channel };
    });
  }

  /** The owner removes anyone; anyone removes themself. The last one out deletes the group. */
  async removeRecipient(actorId: string, channelId: string, userId: string): Promise<Record<string, unknown>> {
    return this.channels.transaction(async (trx) => {
      const row = await this.channels.get(trx, channelId, true);
      const ids = row ? await this.store.participantIds(trx, row) : [];
      if (!row || row.guild_id !== null || !ids.includes(actorId)) throw ApiError.of('UNKNOWN_CHANNEL');
      if (row.type !== ChannelType.GROUP_DM) throw ApiError.of('MISSING_ACCESS');
      if (actorId !== userId && row.owner_id !== actorId) throw ApiError.of('MISSING_PERMISSIONS');
      if (!ids.includes(userId)) throw ApiError.of('UNKNOWN_USER');
      return this.leaveGroup(trx, row, ids, userId);
    });
  }

  private async leaveGroup(trx: Trx, row: ChannelRow, ids: readonly string[], userId: string): Promise<Record<string, unknown>> {
    const users = await usersById(this.auth, ids);
    const gone = this.renderWith(row, ids, users, userId);
    await this.store.removeRecipient(trx, row.id, userId);
    const rest = ids.filter((id) => id !== userId);
    const events: DomainEvent[] = [{ name: 'CHANNEL_DELETE', audience: { users: [userId] }, data: gone }];
    if (rest.length === 0) {
      await this.channels.delete(trx, row);
    } else {
      events.push({
        name: 'CHANNEL_RECIPIENT_REMOVE',
        audience: { users: rest },
        data: { channel_id: row.id, user: userView(userId, users.get(userId)) },
      });
      // A group keeps an owner: the longest-standing recipient inherits it.
      if (row.owner_id === userId) {
        const updated = await this.channels.update(trx, row.id, { owner_id: rest[0]! });
        for (const id of rest)
          events.push({ name: 'CHANNEL_UPDATE', audience: { users: [id] }, data: this.renderWith(updated, rest, users, id) });
      }
    }
    await this.emit(trx, events);
    return gone;
  }

  /** DELETE /channels/{id} of a private channel: closes a DM for the caller (still readable), leaves a group DM. */
  async close(trx: Trx, row: ChannelRow, userId: string): Promise<Record<string, unknown>> {
    const ids = await this.store.participantIds(trx, row);
    if (row.type === ChannelType.GROUP_DM) return this.leaveGroup(trx, row, ids, userId);
    const rendered = await this.render(row, userId, trx);
    await this.store.close(trx, row.id, userId);
    await this.emit(trx, [{ name: 'CHANNEL_DELETE', audience: { users: [userId] }, data: rendered }]);
    return rendered;
  }

  /** PATCH of a group DM: any recipient renames it. */
  async rename(trx: Trx, row: ChannelRow, userId: string, name: string | undefined): Promise<Record<string, unknown>> {
    if (row.type !== ChannelType.GROUP_DM) throw guildErrors.wrongChannelType();
    const updated = name === undefined ? row : await this.channels.update(trx, row.id, { name: name.trim() || null });
    const ids = await this.store.participantIds(trx, updated);
    const users = await usersById(this.auth, ids);
    await this.emit(
      trx,
      ids.map((id) => ({ name: 'CHANNEL_UPDATE', audience: { users: [id] }, data: this.renderWith(updated, ids, users, id) })),
    );
    return this.renderWith(updated, ids, users, userId);
  }

  /** 10013 unless every id is a user auth knows; the users otherwise. */
  private async requireUsers(ids: readonly string[]): Promise<Map<string, ContractUser>> {
    const users = await usersById(this.auth, ids);
    const missing = ids.findIndex((id) => !users.has(id));
    if (missing >= 0) throw ApiError.of('UNKNOWN_USER');
    return users;
  }

  private async emit(trx: Trx, events: DomainEvent[]): Promise<void> {
    await this.outbox.enqueue(trx, events);
  }
}
