import { sql, type DomainEvent, type Kysely } from '@kith/platform';
import type { Transaction } from 'kysely';
import type { RelationshipStore, RelationshipTx } from '../domain/ports.js';
import type { RelationshipRow, RelationshipType } from '../domain/relationship.types.js';
import type { SocialDatabase } from './schema.js';

/** Writes events into the outbox within the given transaction. */
export type Emit = (trx: Transaction<SocialDatabase>, events: DomainEvent[]) => Promise<unknown>;

type Row = Omit<RelationshipRow, 'type'> & { type: number };
const toRow = (r: Row): RelationshipRow => ({ ...r, type: r.type as RelationshipType });

export class PgRelationshipStore implements RelationshipStore {
  constructor(
    private readonly db: Kysely<SocialDatabase>,
    private readonly emit: Emit,
  ) {}

  async list(userId: string): Promise<RelationshipRow[]> {
    const rows = await this.db.selectFrom('relationships').selectAll().where('user_id', '=', userId).orderBy('since').execute();
    return rows.map(toRow);
  }

  async listVersion(userId: string): Promise<string> {
    // Kept by a trigger on `relationships` (migration 0002), so no writer can forget it.
    const row = await this.db.selectFrom('relationship_versions').select('version').where('user_id', '=', userId).executeTakeFirst();
    return row?.version ?? '0';
  }

  withUsersLocked<T>(userIds: string[], fn: (tx: RelationshipTx) => Promise<T>): Promise<T> {
    const ordered = [...new Set(userIds)].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    return this.db.transaction().execute(async (trx) => {
      // Transaction-scoped advisory locks keyed by user id, always taken in id order: every
      // change touching a user is serialised, and two changes can never wait on each other. One
      // statement: a function scan over the sorted array locks row by row, in array order.
      await sql`SELECT pg_advisory_xact_lock(id) FROM unnest(${ordered}::bigint[]) AS u(id)`.execute(trx);
      const tx = new PgRelationshipTx(trx);
      const result = await fn(tx);
      // The change's events, all in one statement, in the order they were emitted.
      if (tx.events.length > 0) await this.emit(trx, tx.events);
      return result;
    });
  }
}

class PgRelationshipTx implements RelationshipTx {
  readonly events: DomainEvent[] = [];

  constructor(private readonly trx: Transaction<SocialDatabase>) {}

  async get(userId: string, targetId: string): Promise<RelationshipRow | undefined> {
    const row = await this.trx
      .selectFrom('relationships')
      .selectAll()
      .where('user_id', '=', userId)
      .where('target_id', '=', targetId)
      .executeTakeFirst();
    return row && toRow(row);
  }

  async getPair(a: string, b: string): Promise<[RelationshipRow | undefined, RelationshipRow | undefined]> {
    const rows = await this.trx
      .selectFrom('relationships')
      .selectAll()
      .where((eb) =>
        eb.or([eb.and([eb('user_id', '=', a), eb('target_id', '=', b)]), eb.and([eb('user_id', '=', b), eb('target_id', '=', a)])]),
      )
      .execute();
    const of = (owner: string) => rows.find((r) => r.user_id === owner);
    const [mine, theirs] = [of(a), of(b)];
    return [mine && toRow(mine), theirs && toRow(theirs)];
  }

  async put(...rows: RelationshipRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.trx
      .insertInto('relationships')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['user_id', 'target_id']).doUpdateSet((eb) => ({
          type: eb.ref('excluded.type'),
          nickname: eb.ref('excluded.nickname'),
          is_spam_request: eb.ref('excluded.is_spam_request'),
          stranger_request: eb.ref('excluded.stranger_request'),
          user_ignored: eb.ref('excluded.user_ignored'),
          origin_application_id: eb.ref('excluded.origin_application_id'),
          since: eb.ref('excluded.since'),
        })),
      )
      .execute();
  }

  async delete(userId: string, targetId: string): Promise<void> {
    await this.trx.deleteFrom('relationships').where('user_id', '=', userId).where('target_id', '=', targetId).execute();
  }

  async friendCounts(userIds: string[]): Promise<Map<string, number>> {
    const rows = await this.trx
      .selectFrom('relationships')
      .select((eb) => ['user_id', eb.fn.countAll<string>().as('n')])
      .where('user_id', 'in', userIds)
      .where('type', '=', 1)
      .groupBy('user_id')
      .execute();
    return new Map(rows.map((r) => [r.user_id, Number(r.n)]));
  }

  async mutualFriendCount(a: string, b: string): Promise<number> {
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM relationships x JOIN relationships y ON x.target_id = y.target_id
      WHERE x.user_id = ${a} AND y.user_id = ${b} AND x.type = 1 AND y.type = 1`.execute(this.trx);
    return Number(rows[0]?.n ?? 0);
  }

  async outgoingRequestsSince(userId: string, since: Date): Promise<number> {
    const { n } = await this.trx
      .selectFrom('relationships')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .where('type', '=', 4)
      .where('since', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(n);
  }

  async emit(event: DomainEvent): Promise<void> {
    this.events.push(event);
  }
}

/** Read-only lookups other services ask for over gRPC. */
export class PgRelationshipQueries {
  constructor(private readonly db: Kysely<SocialDatabase>) {}

  async types(a: string, b: string): Promise<{ aToB: number; bToA: number }> {
    const rows = await this.db
      .selectFrom('relationships')
      .select(['user_id', 'type'])
      .where((eb) =>
        eb.or([eb.and([eb('user_id', '=', a), eb('target_id', '=', b)]), eb.and([eb('user_id', '=', b), eb('target_id', '=', a)])]),
      )
      .execute();
    return { aToB: rows.find((r) => r.user_id === a)?.type ?? 0, bToA: rows.find((r) => r.user_id === b)?.type ?? 0 };
  }

  async friendIds(userId: string, after: string | null, limit: number): Promise<string[]> {
    let query = this.db.selectFrom('relationships').select('target_id').where('user_id', '=', userId).where('type', '=', 1);
    if (after) query = query.where('target_id', '>', after);
    return (await query.orderBy('target_id').limit(limit).execute()).map((r) => r.target_id);
  }

  async mutualFriends(a: string, b: string): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      SELECT x.target_id AS id FROM relationships x JOIN relationships y ON x.target_id = y.target_id
      WHERE x.user_id = ${a} AND y.user_id = ${b} AND x.type = 1 AND y.type = 1 ORDER BY x.target_id`.execute(this.db);
    return rows.map((r) => r.id);
  }
}
