import { ApiError, channelView, userView, type ChannelData, type ContractUser, type DomainEvent } from '@kith/platform';
import { compareIds } from './channel.audience.js';
import type { OpenPrivateInput } from './channel.input.js';
import { toChannel } from './channel.view.js';
import { guildErrors } from './guild.errors.js';
import type { GuildsStore, GuildsTx, GuildsUnit, IdSource, UserDirectory } from './ports.js';
import { ChannelType, type ChannelRecord } from './records.js';

/** A group DM holds at most this many users, its owner included. */
export const MAX_GROUP_DM_RECIPIENTS = 10;

/**
 * DMs (one channel per pair of users, reused) and group DMs. Private channel events go to each
 * user concerned separately: each sees the recipients without themself.
 */
export class DmService {
  constructor(
    private readonly store: GuildsStore,
    private readonly users: UserDirectory,
    private readonly ids: IdSource,
  ) {}

  /** The channel with every participant and the users auth knows of them. */
  async describe(row: ChannelRecord, unit: GuildsUnit = this.store): Promise<ChannelData> {
    const ids = await unit.dms.participants(row);
    return toChannel(row, [], ids, await this.users.users(ids));
  }

  /** The channel as `viewerId` sees it (recipients without the viewer). */
  async render(row: ChannelRecord, viewerId: string, unit: GuildsUnit = this.store): Promise<Record<string, unknown>> {
    return channelView(await this.describe(row, unit), viewerId);
  }

  private renderWith(row: ChannelRecord, ids: readonly string[], users: ReadonlyMap<string, ContractUser>, viewerId: string) {
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
    return this.store.transaction(async (tx) => {
      await tx.dms.lockPair(low, high);
      const existing = await tx.dms.findPair(low, high);
      const row = existing ? (await tx.channels.get(existing))! : await tx.channels.insert({ id: this.ids.next(), type: ChannelType.DM });
      if (!existing) {
        await tx.dms.insertPair(low, high, row.id);
        await tx.dms.addRecipient(row.id, low);
        await tx.dms.addRecipient(row.id, high);
      }
      const opened = !existing || (await tx.dms.reopen(row.id, userId));
      const rendered = await this.render(row, userId, tx);
      // Only the caller's list changes; the other user sees the DM once a message arrives.
      if (opened) await tx.emit([{ name: 'CHANNEL_CREATE', audience: { users: [userId] }, data: rendered }]);
      return rendered;
    });
  }

  private async createGroup(ownerId: string, recipients: readonly string[]): Promise<Record<string, unknown>> {
    const ids = [ownerId, ...new Set(recipients.filter((id) => id !== ownerId))];
    if (ids.length > MAX_GROUP_DM_RECIPIENTS) throw guildErrors.maxRecipients();
    const users = await this.requireUsers(ids);
    return this.store.transaction(async (tx) => {
      const row = await tx.channels.insert({ id: this.ids.next(), type: ChannelType.GROUP_DM, owner_id: ownerId });
      for (const id of ids) await tx.dms.addRecipient(row.id, id);
      await tx.emit(ids.map((id) => ({ name: 'CHANNEL_CREATE', audience: { users: [id] }, data: this.renderWith(row, ids, users, id) })));
      return this.renderWith(row, ids, users, ownerId);
    });
  }

  /** The caller's open private channels (GET /users/@me/channels and READY), every participant named. */
  async listOpen(userId: string): Promise<ChannelData[]> {
    const rows = await this.store.dms.listOpen(userId);
    const participants = await Promise.all(rows.map((row) => this.store.dms.participants(row)));
    const users = await this.users.users(participants.flat());
    return rows.map((row, i) => toChannel(row, [], participants[i]!, users));
  }

  /** GET /users/@me/channels: the open private channels, recipients without the caller. */
  async list(userId: string): Promise<Record<string, unknown>[]> {
    return (await this.listOpen(userId)).map((channel) => channelView(channel, userId));
  }

  /**
   * Adds a user to a group DM: by a recipient (`actorId`), or through an invite (null). 10003
   * unknown, 50001 not the actor's or not a group DM, 30004 full. False when the user already was a recipient.
   */
  async addRecipient(actorId: string | null, channelId: string, userId: string): Promise<{ added: boolean; channel: ChannelData }> {
    await this.requireUsers([userId]);
    return this.store.transaction(async (tx) => {
      const row = await tx.channels.get(channelId, true);
      const ids = row ? await tx.dms.participants(row) : [];
      if (!row) throw ApiError.of('UNKNOWN_CHANNEL');
      if (row.guild_id !== null || (actorId !== null && !ids.includes(actorId))) throw ApiError.of('MISSING_ACCESS');
      if (row.type !== ChannelType.GROUP_DM) throw ApiError.of('MISSING_ACCESS');
      if (ids.includes(userId)) return { added: false, channel: await this.describe(row, tx) };
      if (ids.length >= MAX_GROUP_DM_RECIPIENTS) throw guildErrors.maxRecipients();
      await tx.dms.addRecipient(row.id, userId);
      const all = [...ids, userId];
      const users = await this.users.users(all);
      const channel = toChannel(row, [], all, users);
      await tx.emit([
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
    return this.store.transaction(async (tx) => {
      const row = await tx.channels.get(channelId, true);
      const ids = row ? await tx.dms.participants(row) : [];
      if (!row) throw ApiError.of('UNKNOWN_CHANNEL');
      if (row.guild_id !== null || !ids.includes(actorId)) throw ApiError.of('MISSING_ACCESS');
      if (row.type !== ChannelType.GROUP_DM) throw ApiError.of('MISSING_ACCESS');
      if (actorId !== userId && row.owner_id !== actorId) throw ApiError.of('MISSING_PERMISSIONS');
      if (!ids.includes(userId)) throw ApiError.of('UNKNOWN_USER');
      return this.leaveGroup(tx, row, ids, userId);
    });
  }

  private async leaveGroup(tx: GuildsTx, row: ChannelRecord, ids: readonly string[], userId: string): Promise<Record<string, unknown>> {
    const users = await this.users.users(ids);
    const gone = this.renderWith(row, ids, users, userId);
    await tx.dms.removeRecipient(row.id, userId);
    const rest = ids.filter((id) => id !== userId);
    const events: DomainEvent[] = [{ name: 'CHANNEL_DELETE', audience: { users: [userId] }, data: gone }];
    if (rest.length === 0) {
      await tx.channels.delete(row);
    } else {
      events.push({
        name: 'CHANNEL_RECIPIENT_REMOVE',
        audience: { users: rest },
        data: { channel_id: row.id, user: userView(userId, users.get(userId)) },
      });
      // A group keeps an owner: the longest-standing recipient inherits it.
      if (row.owner_id === userId) {
        const updated = await tx.channels.update(row.id, { owner_id: rest[0]! });
        for (const id of rest)
          events.push({ name: 'CHANNEL_UPDATE', audience: { users: [id] }, data: this.renderWith(updated, rest, users, id) });
      }
    }
    await tx.emit(events);
    return gone;
  }

  /** DELETE /channels/{id} of a private channel: closes a DM for the caller (still readable), leaves a group DM. */
  async close(tx: GuildsTx, row: ChannelRecord, userId: string): Promise<Record<string, unknown>> {
    const ids = await tx.dms.participants(row);
    if (row.type === ChannelType.GROUP_DM) return this.leaveGroup(tx, row, ids, userId);
    const rendered = await this.render(row, userId, tx);
    await tx.dms.close(row.id, userId);
    await tx.emit([{ name: 'CHANNEL_DELETE', audience: { users: [userId] }, data: rendered }]);
    return rendered;
  }

  /** PATCH of a group DM: any recipient renames it. */
  async rename(tx: GuildsTx, row: ChannelRecord, userId: string, name: string | undefined): Promise<Record<string, unknown>> {
    if (row.type !== ChannelType.GROUP_DM) throw guildErrors.wrongChannelType();
    const updated = name === undefined ? row : await tx.channels.update(row.id, { name: name.trim() || null });
    const ids = await tx.dms.participants(updated);
    const users = await this.users.users(ids);
    await tx.emit(ids.map((id) => ({ name: 'CHANNEL_UPDATE', audience: { users: [id] }, data: this.renderWith(updated, ids, users, id) })));
    return this.renderWith(updated, ids, users, userId);
  }

  /** 10013 unless every id is a user auth knows; the users otherwise. */
  private async requireUsers(ids: readonly string[]): Promise<Map<string, ContractUser>> {
    const users = await this.users.users(ids);
    const missing = ids.findIndex((id) => !users.has(id));
    if (missing >= 0) throw ApiError.of('UNKNOWN_USER');
    return users;
  }
}
