import { ApiError, snowflakeTime } from '@kith/platform';
import type { GuildDirectory, PairState, RelationshipStore, RelationshipTx, UserDirectory } from './ports.js';
import {
  MAX_FRIENDS,
  RelationshipType as T,
  type FriendSourceFlags,
  type PartialUser,
  type RelationshipRow,
} from './relationship.types.js';
import { partialRelationship, relationshipView } from './relationship.view.js';

export interface CreateOptions {
  /** Consent to accept a request from a stranger (PUT only). */
  confirmStranger?: boolean;
}

/** A new account that already has this many fresh outgoing requests is flagged as spamming. */
const SPAM_ACCOUNT_AGE_MS = 24 * 3600_000;
const SPAM_PENDING_REQUESTS = 10;

/**
 * A request from someone who shares no friend and no small guild with its target is a stranger's
 * (the platform's `stranger_request`). The platform does not publish where "small" ends; a guild of
 * up to this many members is one where people plausibly know each other.
 */
export const SMALL_GUILD_MEMBERS = 200;

/**
 * The friend/block/ignore state machine for a pair of users. Every change to a pair runs with both
 * users locked, so two users asking each other at once end as friends, and the friend cap holds.
 */
export class RelationshipsService {
  constructor(
    private readonly store: RelationshipStore,
    private readonly users: UserDirectory,
    private readonly guilds: GuildDirectory | null,
    private readonly now: () => Date = () => new Date(),
    /**
     * Users only shown in an event, never checked (a removal's kept ignore row): a cache may answer,
     * as it does for the list, which shows the same users.
     */
    private readonly shownUsers: Pick<UserDirectory, 'getUsers'> = users,
  ) {}

  async sendByUsername(actorId: string, username: string, discriminator: string | null): Promise<void> {
    const target = await this.users.findByUsername(username, discriminator);
    if (!target) throw ApiError.of('NO_SUCH_USERNAME');
    await this.requestOrAccept(actorId, target, {});
  }

  /** PUT with `type` omitted or -1: accept their request, or ask them. */
  async requestOrAcceptById(actorId: string, targetId: string, options: CreateOptions): Promise<void> {
    // Both users in one call to auth; the errors stay in the order they had when asked one by one.
    const users = await this.users.getUsers([actorId, targetId]);
    const target = users.get(targetId);
    if (!target) throw ApiError.of('UNKNOWN_USER');
    await this.requestOrAccept(actorId, target, options, users.get(actorId));
  }

  /** PUT with `type` 1: only accepts a request they sent. */
  async acceptById(actorId: string, targetId: string, options: CreateOptions): Promise<void> {
    const [actor, target] = await this.pair(actorId, targetId);
    await this.store.withUsersLocked([actorId, targetId], async (tx) => {
      const state = await tx.pairState(actorId, targetId, { mutualFriends: false, outgoingSince: null });
      if (state.mine?.type !== T.INCOMING_REQUEST) throw ApiError.of('NO_INCOMING_REQUEST');
      await this.accept(tx, actor, target, state.mine, state, options);
    });
  }

  /**
   * A friend invite accepted by `actorId`: the invite is the inviter's consent, so the two become
   * friends at once, whatever request stood between them and whatever the inviter's privacy
   * settings. Blocked either way is refused; already friends changes nothing (false).
   */
  async befriendByInvite(actorId: string, inviterId: string): Promise<boolean> {
    if (actorId === inviterId) throw ApiError.of('FRIEND_REQUEST_SELF');
    const [actor, inviter] = await this.pair(actorId, inviterId);
    if (actor.bot || inviter.bot) throw ApiError.of('BOTS_CANNOT_HAVE_FRIENDS');
    return this.store.withUsersLocked([actorId, inviterId], async (tx) => {
      const state = await tx.pairState(actorId, inviterId, { mutualFriends: false, outgoingSince: null });
      if (state.mine?.type === T.BLOCKED || state.theirs?.type === T.BLOCKED) throw ApiError.of('FRIEND_REQUEST_BLOCKED');
      if (state.mine?.type === T.FRIEND) return false;
      const mine = state.mine ?? this.row(actorId, inviterId, T.NONE, {});
      await this.accept(tx, actor, inviter, { ...mine, stranger_request: false }, state, {});
      return true;
    });
  }

  async block(actorId: string, targetId: string): Promise<void> {
    if (actorId === targetId) throw ApiError.of('FRIEND_REQUEST_SELF');
    const [actor, target] = await this.pair(actorId, targetId);
    await this.store.withUsersLocked([actorId, targetId], async (tx) => {
      const [mine, theirs] = await tx.getPair(actorId, targetId);
      if (mine?.type === T.BLOCKED) return;
      const blocked = this.row(actorId, targetId, T.BLOCKED, { user_ignored: mine?.user_ignored ?? false });
      await tx.put(blocked);
      await emit(tx, 'RELATIONSHIP_ADD', actorId, relationshipView(blocked, target));
      // The other side only sees its friend or request row go, never that it was blocked: its own
      // ignore (a NONE row) or block stays as it is, without an event.
      if (theirs && isPairType(theirs.type)) await this.drop(tx, theirs, actor);
    });
  }

  async ignore(actorId: string, targetId: string): Promise<void> {
    if (actorId === targetId) throw selfError();
    const target = await this.userOrThrow(targetId);
    await this.store.withUsersLocked([actorId], async (tx) => {
      const mine = await tx.get(actorId, targetId);
      if (mine?.user_ignored) return;
      if (!mine) {
        const row = this.row(actorId, targetId, T.NONE, { user_ignored: true });
        await tx.put(row);
        return emit(tx, 'RELATIONSHIP_ADD', actorId, relationshipView(row, target));
      }
      const row = { ...mine, user_ignored: true };
      await tx.put(row);
      await emit(tx, 'RELATIONSHIP_UPDATE', actorId, partialRelationship(row));
    });
  }

  async unignore(actorId: string, targetId: string): Promise<void> {
    await this.store.withUsersLocked([actorId], async (tx) => {
      const mine = await tx.get(actorId, targetId);
      if (!mine?.user_ignored) return;
      if (mine.type === T.NONE) {
        await tx.delete(actorId, targetId);
        return emit(tx, 'RELATIONSHIP_REMOVE', actorId, partialRelationship(mine));
      }
      const row = { ...mine, user_ignored: false };
      await tx.put(row);
      await emit(tx, 'RELATIONSHIP_UPDATE', actorId, partialRelationship(row));
    });
  }

  async setNickname(actorId: string, targetId: string, nickname: string | null): Promise<void> {
    await this.store.withUsersLocked([actorId], async (tx) => {
      const mine = await tx.get(actorId, targetId);
      if (mine?.type !== T.FRIEND) throw ApiError.of('NOT_FRIENDS');
      if (mine.nickname === nickname) return;
      const row = { ...mine, nickname };
      await tx.put(row);
      await emit(tx, 'RELATIONSHIP_UPDATE', actorId, partialRelationship(row));
    });
  }

  /** Cancels, declines, unfriends or unblocks; a pending or friend pair ends on both sides. */
  async remove(actorId: string, targetId: string): Promise<void> {
    const users = await this.shownUsers.getUsers([actorId, targetId]);
    await this.store.withUsersLocked([actorId, targetId], (tx) => this.removePair(tx, actorId, targetId, users));
  }

  /** Removes the caller's incoming requests that pass every filter (SPAM, IGNORED). */
  async removeIncoming(actorId: string, filters: { spam: boolean; ignored: boolean }): Promise<void> {
    const incoming = (await this.store.list(actorId)).filter(
      (r) => r.type === T.INCOMING_REQUEST && (!filters.spam || r.is_spam_request) && (!filters.ignored || r.user_ignored),
    );
    if (incoming.length === 0) return;
    const senders = incoming.map((r) => r.target_id);
    const users = await this.shownUsers.getUsers([actorId, ...senders]);
    await this.store.withUsersLocked([actorId, ...senders], async (tx) => {
      for (const sender of senders) {
        const [mine, theirs] = await tx.getPair(actorId, sender);
        if (mine?.type === T.INCOMING_REQUEST) await this.dropPair(tx, mine, theirs, users);
      }
    });
  }

  private async removePair(tx: RelationshipTx, actorId: string, targetId: string, users: Map<string, PartialUser>): Promise<void> {
    // Both rows in one read: dropping one side never changes the other's row.
    const [mine, theirs] = await tx.getPair(actorId, targetId);
    if (mine) await this.dropPair(tx, mine, theirs, users);
  }

  private async dropPair(
    tx: RelationshipTx,
    mine: RelationshipRow,
    theirs: RelationshipRow | undefined,
    users: Map<string, PartialUser>,
  ): Promise<void> {
    await this.drop(tx, mine, users.get(mine.target_id));
    if (!isPairType(mine.type)) return;
    if (theirs && theirs.type !== T.BLOCKED) await this.drop(tx, theirs, users.get(mine.user_id));
  }

  private async requestOrAccept(actorId: string, target: PartialUser, options: CreateOptions, known?: PartialUser): Promise<void> {
    if (actorId === target.id) throw ApiError.of('FRIEND_REQUEST_SELF');
    const actor = known ?? (await this.userOrThrow(actorId));
    if (actor.bot || target.bot) throw ApiError.of('BOTS_CANNOT_HAVE_FRIENDS');
    // One question to guilds decides both the privacy setting's "mutual guilds" and whether this is a stranger's request.
    const [flags, mutualGuilds] = await Promise.all([
      this.users.friendSourceFlags(target.id),
      this.guilds?.mutualGuilds(actorId, target.id) ?? [],
    ]);
    const sharesGuild = mutualGuilds.length > 0;
    const sharesSmallGuild = mutualGuilds.some((g) => g.memberCount <= SMALL_GUILD_MEMBERS);
    const spamSince = this.spamWindowStart(actorId);
    await this.store.withUsersLocked([actorId, target.id], async (tx) => {
      // One read for every check below (the counts are cheap next to a round trip each).
      const state = await tx.pairState(actorId, target.id, { mutualFriends: true, outgoingSince: spamSince });
      const { mine, theirs } = state;
      if (mine?.type === T.BLOCKED || theirs?.type === T.BLOCKED) throw ApiError.of('FRIEND_REQUEST_BLOCKED');
      if (mine?.type === T.FRIEND) throw ApiError.of('ALREADY_FRIENDS');
      if (mine?.type === T.INCOMING_REQUEST) return this.accept(tx, actor, target, mine, state, options);
      if (mine?.type === T.OUTGOING_REQUEST) return;
      if (!allowedBy(flags, state.mutualFriends > 0, sharesGuild)) throw ApiError.of('FRIEND_REQUESTS_DISABLED');
      assertUnderCap(state);
      const outgoing = this.row(actorId, target.id, T.OUTGOING_REQUEST, { user_ignored: mine?.user_ignored ?? false });
      const incoming = this.row(target.id, actorId, T.INCOMING_REQUEST, {
        user_ignored: theirs?.user_ignored ?? false,
        stranger_request: state.mutualFriends === 0 && !sharesSmallGuild,
        is_spam_request: spamSince !== null && state.outgoingSince >= SPAM_PENDING_REQUESTS,
      });
      await tx.put(outgoing, incoming);
      await emit(tx, 'RELATIONSHIP_ADD', actorId, relationshipView(outgoing, target));
      // An ignored or spam-flagged request is listed, but not announced to the user.
      await emit(tx, 'RELATIONSHIP_ADD', target.id, {
        ...relationshipView(incoming, actor),
        should_notify: !incoming.user_ignored && !incoming.is_spam_request,
      });
    });
  }

  private async accept(
    tx: RelationshipTx,
    actor: PartialUser,
    target: PartialUser,
    mine: RelationshipRow,
    state: PairState,
    options: CreateOptions,
  ) {
    if (mine.stranger_request && options.confirmStranger === false) throw ApiError.of('STRANGER_REQUEST_UNCONFIRMED');
    assertUnderCap(state);
    const mineNow = this.row(actor.id, target.id, T.FRIEND, { user_ignored: mine.user_ignored });
    const theirsNow = this.row(target.id, actor.id, T.FRIEND, { user_ignored: state.theirs?.user_ignored ?? false });
    await tx.put(mineNow, theirsNow);
    await emit(tx, 'RELATIONSHIP_ADD', actor.id, relationshipView(mineNow, target));
    await emit(tx, 'RELATIONSHIP_ADD', target.id, relationshipView(theirsNow, actor));
  }

  /** A row leaves its owner's list; an ignore on it survives as a NONE row. */
  private async drop(tx: RelationshipTx, row: RelationshipRow, target: PartialUser | undefined): Promise<void> {
    await emit(tx, 'RELATIONSHIP_REMOVE', row.user_id, partialRelationship(row));
    if (!row.user_ignored || row.type === T.NONE) return tx.delete(row.user_id, row.target_id);
    const kept = this.row(row.user_id, row.target_id, T.NONE, { user_ignored: true });
    await tx.put(kept);
    await emit(tx, 'RELATIONSHIP_ADD', row.user_id, relationshipView(kept, target));
  }

  /**
   * Documented spam rule: an account younger than a day with 10+ requests sent in the last day.
   * The start of that day for a new account; null for an older one, which is never flagged.
   */
  private spamWindowStart(senderId: string): Date | null {
    const now = this.now();
    if (now.getTime() - snowflakeTime(senderId).getTime() > SPAM_ACCOUNT_AGE_MS) return null;
    return new Date(now.getTime() - SPAM_ACCOUNT_AGE_MS);
  }

  private row(userId: string, targetId: string, type: RelationshipRow['type'], extra: Partial<RelationshipRow>): RelationshipRow {
    return {
      user_id: userId,
      target_id: targetId,
      type,
      nickname: null,
      is_spam_request: false,
      stranger_request: false,
      user_ignored: false,
      origin_application_id: null,
      since: this.now(),
      ...extra,
    };
  }

  private async pair(actorId: string, targetId: string): Promise<[PartialUser, PartialUser]> {
    const users = await this.users.getUsers([actorId, targetId]);
    const actor = users.get(actorId);
    const target = users.get(targetId);
    if (!target) throw ApiError.of('UNKNOWN_USER');
    if (!actor) throw ApiError.unauthorized();
    return [actor, target];
  }

  private async userOrThrow(id: string): Promise<PartialUser> {
    const user = (await this.users.getUsers([id])).get(id);
    if (!user) throw ApiError.of('UNKNOWN_USER');
    return user;
  }
}

/** Friends and requests exist on both sides at once; blocks, ignores and affinities are one side's own. */
function isPairType(type: RelationshipRow['type']): boolean {
  return type === T.FRIEND || type === T.INCOMING_REQUEST || type === T.OUTGOING_REQUEST;
}

function assertUnderCap(state: PairState): void {
  if (state.friendCounts.some((n) => n >= MAX_FRIENDS)) throw ApiError.of('MAX_FRIENDS');
}

function allowedBy(flags: FriendSourceFlags, mutualFriend: boolean, mutualGuild: boolean): boolean {
  return flags.all || (flags.mutual_friends && mutualFriend) || (flags.mutual_guilds && mutualGuild);
}

function emit(tx: RelationshipTx, name: string, userId: string, data: unknown): Promise<void> {
  return tx.emit({ name, audience: { users: [userId] }, data });
}

function selfError(): ApiError {
  return ApiError.form({ '': { code: 'RELATIONSHIP_INVALID_SELF', message: 'You cannot do this to yourself.' } });
}
