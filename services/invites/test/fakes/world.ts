import { ApiError, type ChannelData, type ContractUser, type DomainEvent, type GuildData, type MemberData } from '@kith/platform';
import { newInviteCode } from '../../src/domain/invite.codes.js';
import type { ClaimedJob, TargetJob, TargetUsersStore } from '../../src/domain/target-users.ports.js';
import type { InviteRecord, NewInvite } from '../../src/domain/invite.types.js';
import type {
  AddMemberAnswer,
  AddRecipientAnswer,
  CreateOutcome,
  EventsOf,
  GuildDirectory,
  InviteStore,
  PermissionAnswer,
  SocialDirectory,
  UserDirectory,
} from '../../src/domain/ports.js';

/** An in-memory invites table with the store's rules (live, reservations, tombstones). */
export class MemoryInviteStore implements InviteStore {
  readonly rows = new Map<string, InviteRecord & { pending: number; deleted: boolean }>();
  readonly events: DomainEvent[] = [];
  now = Date.now();
  /** Where files given at creation go (the real store writes the job in the same transaction). */
  targetStore: MemoryTargetStore | undefined;

  private isLive(r: InviteRecord & { deleted: boolean }): boolean {
    return !r.deleted && (r.expires_at === null || r.expires_at.getTime() > this.now) && (r.max_uses === 0 || r.uses < r.max_uses);
  }
  private plain(r: InviteRecord & { pending: number; deleted: boolean }): InviteRecord {
    const { pending: _p, deleted: _d, ...rest } = r;
    return { ...rest, role_ids: [...rest.role_ids] };
  }

  async create(invite: NewInvite, maxPerGuild: number, events: EventsOf): Promise<CreateOutcome> {
    if (invite.guild_id && [...this.rows.values()].filter((r) => r.guild_id === invite.guild_id && this.isLive(r)).length >= maxPerGuild)
      return { limit: true };
    const code = invite.code ?? newInviteCode();
    if (this.rows.has(code)) return { codeTaken: true };
    const created_at = new Date(this.now);
    const row = {
      ...invite,
      code,
      uses: 0,
      created_at,
      expires_at: invite.max_age === 0 ? null : new Date(this.now + invite.max_age * 1000),
      targeted: invite.targetFile !== undefined,
      pending: 0,
      deleted: false,
    };
    delete (row as { targetFile?: unknown }).targetFile;
    this.rows.set(code, row);
    if (invite.targetFile) this.targetStore?.add(code, invite.targetFile);
    this.events.push(...events(this.plain(row)));
    return { invite: this.plain(row) };
  }
  async findReusable(i: NewInvite): Promise<InviteRecord | undefined> {
    const found = [...this.rows.values()].find(
      (r) =>
        this.isLive(r) &&
        r.inviter_id === i.inviter_id &&
        r.channel_id === i.channel_id &&
        r.max_age === i.max_age &&
        r.max_uses === i.max_uses &&
        r.temporary === i.temporary &&
        r.flags === i.flags &&
        r.target_type === i.target_type &&
        r.role_ids.join() === i.role_ids.join() &&
        !r.targeted,
    );
    return found && this.plain(found);
  }
  async get(code: string): Promise<InviteRecord | undefined> {
    const r = this.rows.get(code);
    return r && this.isLive(r) ? this.plain(r) : undefined;
  }
  async markViewed(code: string): Promise<void> {
    const r = this.rows.get(code);
    if (r) r.flags |= 2;
  }
  private list(pred: (r: InviteRecord) => boolean): Promise<InviteRecord[]> {
    return Promise.resolve([...this.rows.values()].filter((r) => this.isLive(r) && pred(r)).map((r) => this.plain(r)));
  }
  listByGuild(guildId: string) {
    return this.list((r) => r.guild_id === guildId);
  }
  listByChannel(channelId: string) {
    return this.list((r) => r.channel_id === channelId);
  }
  listFriendInvites(inviterId: string) {
    return this.list((r) => r.inviter_id === inviterId && r.type === 2);
  }
  private end(pred: (r: InviteRecord) => boolean, events: EventsOf): InviteRecord[] {
    const ended = [...this.rows.values()].filter((r) => this.isLive(r) && pred(r));
    for (const r of ended) {
      r.deleted = true;
      this.events.push(...events(this.plain(r)));
    }
    return ended.map((r) => this.plain(r));
  }
  async delete(code: string, events: EventsOf) {
    return this.end((r) => r.code === code, events)[0];
  }
  async deleteWhere(where: { guildId?: string; channelId?: string }, events: EventsOf) {
    return this.end((r) => (where.channelId ? r.channel_id === where.channelId : r.guild_id === where.guildId), events);
  }
  async revokeFriendInvites(inviterId: string, events: EventsOf) {
    return this.end((r) => r.inviter_id === inviterId && r.type === 2, events);
  }
  /** Reservations in flight: id → code and user. */
  readonly reservations = new Map<string, { code: string; userId: string }>();
  private reservationIds = 0;
  async reserveUse(code: string, userId: string) {
    const r = this.rows.get(code);
    if (!r || !this.isLive(r) || r.max_uses === 0 || r.uses + r.pending >= r.max_uses) return undefined;
    r.pending++;
    const reservation = `r${++this.reservationIds}`;
    this.reservations.set(reservation, { code, userId });
    return { invite: this.plain(r), reservation };
  }
  async releaseUse(reservation: string) {
    const held = this.reservations.get(reservation);
    if (!held || !this.reservations.delete(reservation)) return;
    const r = this.rows.get(held.code)!;
    r.pending = Math.max(0, r.pending - 1);
  }
  async claimExpiredReservations() {
    return [];
  }
  async confirmUse(code: string, reservation: string | null, events: EventsOf) {
    if (reservation && !this.reservations.delete(reservation)) return;
    const r = this.rows.get(code)!;
    r.uses++;
    if (reservation) r.pending = Math.max(0, r.pending - 1);
    if (!r.deleted && r.max_uses > 0 && r.uses >= r.max_uses) {
      r.deleted = true;
      this.events.push(...events(this.plain(r)));
    }
  }
}

export function user(id: string): ContractUser {
  return { id, username: `user${id}`, discriminator: '0', publicFlags: 0n, bot: false };
}

export class FakeUsers implements UserDirectory {
  /** Unset: every id is a user. */
  known: Set<string> | undefined;
  async users(ids: readonly string[]) {
    return new Map(ids.filter((id) => this.known?.has(id) ?? true).map((id) => [id, user(id)]));
  }
  async unknownIds(ids: readonly string[]) {
    return ids.filter((id) => !(this.known?.has(id) ?? true));
  }
}

/** A guild world: channels, guilds, each user's permissions, and who joined. */
export class FakeGuilds implements GuildDirectory {
  readonly channels = new Map<string, ChannelData>();
  readonly guilds = new Map<string, GuildData>();
  readonly perms = new Map<string, bigint>();
  readonly members = new Map<string, Set<string>>();
  readonly bans = new Set<string>();
  managers: string[] = [];

  async channel(id: string) {
    return this.channels.get(id);
  }
  async guild(id: string) {
    return this.guilds.get(id);
  }
  async member(guildId: string, userId: string): Promise<MemberData | undefined> {
    if (!this.members.get(guildId)?.has(userId)) return undefined;
    return {
      userId,
      nick: '',
      roleIds: [],
      joinedAt: '',
      pending: false,
      temporary: false,
      flags: 0,
      avatar: '',
      deaf: false,
      mute: false,
    } as MemberData;
  }
  async permissions(userId: string, guildId: string): Promise<PermissionAnswer> {
    const member = this.members.get(guildId)?.has(userId) ?? false;
    return { member, permissions: member ? (this.perms.get(userId) ?? 0n) : 0n };
  }
  async channelUsersWith(): Promise<string[]> {
    return this.managers;
  }
  async addMember(guildId: string, userId: string): Promise<AddMemberAnswer> {
    if (!this.guilds.has(guildId)) return { error: 10004 };
    if (this.bans.has(userId)) return { error: 40007 };
    const set = this.members.get(guildId)!;
    const already = set.has(userId);
    set.add(userId);
    return { error: 0, alreadyMember: already, member: undefined };
  }
  async addRecipient(channelId: string, userId: string): Promise<AddRecipientAnswer> {
    const channel = this.channels.get(channelId);
    if (!channel) return { error: 10003 };
    if (channel.recipientIds.includes(userId)) return { error: 0, alreadyRecipient: true, channel };
    if (channel.recipientIds.length >= 10) return { error: 30004 };
    channel.recipientIds.push(userId);
    return { error: 0, alreadyRecipient: false, channel };
  }

  /** A guild `g` owned by `owner` with a text channel `c`. */
  addGuild(g: string, c: string, owner: string, type = 0): void {
    this.guilds.set(g, { id: g, name: 'G', ownerId: owner, roles: [], features: [], approximateMemberCount: 1 } as unknown as GuildData);
    this.channels.set(c, { id: c, type, guildId: g, name: 'general', recipientIds: [], recipients: [] } as unknown as ChannelData);
    this.members.set(g, new Set([owner]));
  }
}

/** Friendships and blocks as `a:b` pairs (a friendship is stored once per direction it was made). */
export class FakeSocial implements SocialDirectory {
  readonly friends = new Set<string>();
  readonly blocked = new Set<string>();
  async befriend(userId: string, inviterId: string): Promise<boolean> {
    if (this.blocked.has(`${userId}:${inviterId}`) || this.blocked.has(`${inviterId}:${userId}`))
      throw ApiError.of('FRIEND_REQUEST_BLOCKED');
    if (this.friends.has(`${inviterId}:${userId}`)) return false;
    this.friends.add(`${inviterId}:${userId}`);
    return true;
  }
  async blocks(userId: string, otherId: string): Promise<boolean> {
    return this.blocked.has(`${userId}:${otherId}`);
  }
  async friendIds(userId: string): Promise<string[]> {
    return [...this.friends].filter((p) => p.startsWith(`${userId}:`)).map((p) => p.split(':')[1]!);
  }
}

/** Target users jobs in memory, with the store's generation rule. */
export class MemoryTargetStore implements TargetUsersStore {
  readonly jobsByCode = new Map<string, TargetJob & { rows: string[]; generation: number; claimed: boolean }>();
  readonly targets = new Map<string, Set<string>>();

  add(code: string, rows: string[]): void {
    this.jobsByCode.set(code, {
      status: 1,
      total_users: rows.length,
      processed_users: 0,
      created_at: new Date(),
      completed_at: null,
      error_message: null,
      rows,
      generation: 1,
      claimed: false,
    });
  }
  async job(code: string) {
    return this.jobsByCode.get(code);
  }
  async jobs(codes: readonly string[]) {
    return new Map(codes.filter((c) => this.jobsByCode.has(c)).map((c) => [c, this.jobsByCode.get(c)!] as const));
  }
  async file(code: string) {
    return this.jobsByCode.get(code)?.rows;
  }
  async replaceFile(code: string, rows: readonly string[]) {
    const job = this.jobsByCode.get(code);
    if (!job) return false;
    Object.assign(job, { rows: [...rows], status: 1, total_users: rows.length, processed_users: 0, error_message: null, claimed: false });
    job.generation++;
    return true;
  }
  async isTarget(code: string, userId: string) {
    return this.targets.get(code)?.has(userId) ?? false;
  }
  async claim(): Promise<ClaimedJob | undefined> {
    const entry = [...this.jobsByCode.entries()].find(([, j]) => j.status === 1 && !j.claimed);
    if (!entry) return undefined;
    entry[1].claimed = true;
    return { code: entry[0], generation: entry[1].generation, rows: [...entry[1].rows] };
  }
  async progress(job: ClaimedJob, processed: number) {
    const j = this.jobsByCode.get(job.code)!;
    if (j.generation === job.generation) j.processed_users = processed;
  }
  async complete(job: ClaimedJob, userIds: readonly string[]) {
    const j = this.jobsByCode.get(job.code)!;
    if (j.generation !== job.generation) return false;
    this.targets.set(job.code, new Set(userIds));
    Object.assign(j, { status: 2, processed_users: userIds.length, completed_at: new Date(), claimed: false });
    return true;
  }
  async fail(job: ClaimedJob, message: string, processed: number) {
    const j = this.jobsByCode.get(job.code)!;
    if (j.generation === job.generation)
      Object.assign(j, { status: 3, error_message: message, processed_users: processed, claimed: false });
  }
}
