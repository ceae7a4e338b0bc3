import { ApiError, userView } from '@kith/platform';
import type { UserDirectory } from './ports.js';
import { RelationshipType as T, type PartialUser } from './relationship.types.js';

export interface GameRelationshipRow {
  user_id: string;
  target_id: string;
  application_id: string;
  type: 1 | 3 | 4;
  dm_access_type: number;
  since: Date;
}

export interface GameTx {
  /** Either user blocks the other (in the social graph). */
  blocked(a: string, b: string): Promise<boolean>;
  get(userId: string, targetId: string, applicationId: string): Promise<GameRelationshipRow | undefined>;
  put(row: GameRelationshipRow): Promise<void>;
  delete(userId: string, targetId: string, applicationId?: string): Promise<GameRelationshipRow[]>;
  emit(name: string, userId: string, data: unknown): Promise<void>;
}

export interface GameStore {
  withUsersLocked<T>(userIds: string[], fn: (tx: GameTx) => Promise<T>): Promise<T>;
  list(userId: string): Promise<GameRelationshipRow[]>;
  /** Applications both users have authorized, lowest id first. */
  commonApplications(a: string, b: string): Promise<string[]>;
  recordAuthorization(userId: string, applicationId: string): Promise<void>;
}

export function gameView(row: GameRelationshipRow, user: PartialUser | undefined) {
  return {
    id: row.target_id,
    application_id: row.application_id,
    type: row.type,
    user: userView(row.target_id, user),
    since: row.since.toISOString(),
    dm_access_type: row.dm_access_type,
    user_id: row.user_id,
  };
}

/** The platform's Game Relationship Remove payload: the game relationship without its user. */
const removal = (row: GameRelationshipRow) => ({
  id: row.target_id,
  application_id: row.application_id,
  type: row.type,
  since: row.since.toISOString(),
  dm_access_type: row.dm_access_type,
  user_id: row.user_id,
});

/** In-game friendships, per application both users authorized. */
export class GameRelationshipsService {
  constructor(
    private readonly store: GameStore,
    private readonly users: UserDirectory,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async list(userId: string) {
    const rows = await this.store.list(userId);
    const users = await this.users.getUsers(rows.map((r) => r.target_id));
    return rows.map((r) => gameView(r, users.get(r.target_id)));
  }

  async sendByUsername(actorId: string, username: string, applicationId?: string): Promise<void> {
    const target = await this.users.findByUsername(username, null);
    if (!target) throw ApiError.of('NO_SUCH_USERNAME');
    await this.requestOrAccept(actorId, target.id, applicationId, false);
  }

  /** `onlyAccept` (type FRIEND) needs their request; otherwise a request is made if none exists. */
  async requestOrAccept(actorId: string, targetId: string, applicationId: string | undefined, onlyAccept: boolean): Promise<void> {
    if (actorId === targetId) throw ApiError.of('FRIEND_REQUEST_SELF');
    const users = await this.users.getUsers([actorId, targetId]);
    const actor = users.get(actorId);
    const target = users.get(targetId);
    if (!target) throw ApiError.of('UNKNOWN_USER');
    const common = await this.store.commonApplications(actorId, targetId);
    const app = applicationId ?? common[0];
    if (!app || !common.includes(app)) throw ApiError.of('NO_COMMON_APPLICATION');
    await this.store.withUsersLocked([actorId, targetId], async (tx) => {
      if (await tx.blocked(actorId, targetId)) throw ApiError.of('FRIEND_REQUEST_BLOCKED');
      const mine = await tx.get(actorId, targetId, app);
      if (mine?.type === T.FRIEND) return;
      const accepting = mine?.type === T.INCOMING_REQUEST;
      if (onlyAccept && !accepting) throw ApiError.of('NO_INCOMING_REQUEST');
      if (mine?.type === T.OUTGOING_REQUEST) return;
      const since = this.now();
      const ours: GameRelationshipRow = {
        user_id: actorId,
        target_id: targetId,
        application_id: app,
        type: accepting ? 1 : 4,
        dm_access_type: 0,
        since,
      };
      const theirs: GameRelationshipRow = { ...ours, user_id: targetId, target_id: actorId, type: accepting ? 1 : 3 };
      await tx.put(ours);
      await tx.put(theirs);
      await tx.emit('GAME_RELATIONSHIP_ADD', actorId, gameView(ours, target));
      await tx.emit('GAME_RELATIONSHIP_ADD', targetId, gameView(theirs, actor));
    });
  }

  /** Ends the pair's game relationship for one application, or for all of them. */
  async remove(actorId: string, targetId: string, applicationId?: string): Promise<void> {
    await this.store.withUsersLocked([actorId, targetId], async (tx) => {
      for (const row of await tx.delete(actorId, targetId, applicationId)) await tx.emit('GAME_RELATIONSHIP_REMOVE', actorId, removal(row));
      for (const row of await tx.delete(targetId, actorId, applicationId))
        await tx.emit('GAME_RELATIONSHIP_REMOVE', targetId, removal(row));
    });
  }

  recordAuthorization(userId: string, applicationId: string): Promise<void> {
    return this.store.recordAuthorization(userId, applicationId);
  }
}
