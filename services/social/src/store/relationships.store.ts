import { inlineParameters, sql, type DomainEvent, type Outbox } from '@kith/platform';
import { CompiledQuery, Kysely, RawNode, type OperationNode, type OperationNodeSource, type Transaction } from 'kysely';
import type { PairState, RelationshipStore, RelationshipTx } from '../domain/ports.js';
import type { RelationshipRow, RelationshipType } from '../domain/relationship.types.js';
import type { SocialDatabase } from './schema.js';

/** Writes events into the outbox within the given transaction. */
export type Emit = (trx: Transaction<SocialDatabase>, events: DomainEvent[]) => Promise<unknown>;

/** The outbox's statement for some events, built but not sent (the platform's `Outbox`). */
export type OutboxStatements = Pick<Outbox, 'statement'>;

type Row = Omit<RelationshipRow, 'type'> & { type: number };
const toRow = (r: Row): RelationshipRow => ({ ...r, type: r.type as RelationshipType });

/** A user id fit to be written into SQL text as an integer literal: digits only, within bigint. */
const BIGINT_ID = /^[1-9][0-9]{0,18}$/;
const isBigintId = (id: string): boolean => BIGINT_ID.test(id) && BigInt(id) <= 9223372036854775807n;

/**
 * Every change runs as few round trips as its reads allow (each one costs this machine far more than
 * the work it carries):
 *  1. `BEGIN; SELECT pg_advisory_xact_lock(...)`: one simple-protocol message (no parameters, the ids
 *     are checked integer literals);
 *  2. the reads, the several a decision needs in one statement;
 *  3. the writes, as data-modifying CTEs of the outbox's own INSERT+NOTIFY statement, and COMMIT, in
 *     one simple-protocol message (the values written in as escaped literals).
 * Writes are held until the transaction ends, or until a read comes after them (a read must see
 * them), and never two to the same row in one statement. Anything that cannot take this path (a
 * value that is no plain scalar, a NUL byte, an id that is not an integer) takes the ordinary one:
 * the same statements with parameters, each on its own.
 */
export class PgRelationshipStore implements RelationshipStore {
  constructor(
    private readonly db: Kysely<SocialDatabase>,
    private readonly outbox: OutboxStatements,
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
    return this.db.connection().execute(async (conn) => {
      let open = false;
      try {
        // Transaction-scoped advisory locks keyed by user id, always taken in id order: every
        // change touching a user is serialised, and two changes can never wait on each other. One
        // statement: a function scan over the sorted array locks row by row, in array order.
        if (ordered.every(isBigintId)) {
          open = true;
          await sql.raw(`BEGIN; SELECT pg_advisory_xact_lock(id) FROM unnest('{${ordered.join(',')}}'::bigint[]) AS u(id)`).execute(conn);
        } else {
          await sql.raw('BEGIN').execute(conn);
          open = true;
          await sql`SELECT pg_advisory_xact_lock(id) FROM unnest(${ordered}::bigint[]) AS u(id)`.execute(conn);
        }
        const tx = new PgRelationshipTx(conn, this.outbox);
        const result = await fn(tx);
        await tx.commit();
        open = false;
        return result;
      } catch (err) {
        // The connection goes back to the pool: never inside a transaction, aborted or not.
        if (open) await sql.raw('ROLLBACK').execute(conn);
        throw err;
      }
    });
  }
}

/** A write not yet sent, and the rows (`user:target`) it touches. */
interface PendingWrite {
  node: OperationNode;
  keys: string[];
}

class PgRelationshipTx implements RelationshipTx {
  private readonly events: DomainEvent[] = [];
  private pending: PendingWrite[] = [];

  constructor(
    private readonly conn: Kysely<SocialDatabase>,
    private readonly outbox: OutboxStatements,
  ) {}

  async get(userId: string, targetId: string): Promise<RelationshipRow | undefined> {
    await this.flush();
    const row = await this.conn
      .selectFrom('relationships')
      .selectAll()
      .where('user_id', '=', userId)
      .where('target_id', '=', targetId)
      .executeTakeFirst();
    return row && toRow(row);
  }

  async getPair(a: string, b: string): Promise<[RelationshipRow | undefined, RelationshipRow | undefined]> {
    await this.flush();
    const rows = await this.conn
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

  async pairState(a: string, b: string, options: { mutualFriends: boolean; outgoingSince: Date | null }): Promise<PairState> {
    await this.flush();
    const mutual = options.mutualFriends
      ? sql`(SELECT count(*) FROM relationships x JOIN relationships y ON x.target_id = y.target_id
          WHERE x.user_id = ${a} AND y.user_id = ${b} AND x.type = 1 AND y.type = 1)`
      : sql`0`;
    const outgoing = options.outgoingSince
      ? sql`(SELECT count(*) FROM relationships WHERE user_id = ${a} AND type = 4 AND since >= ${options.outgoingSince})`
      : sql`0`;
    // One row of counts, joined to the pair's rows (none, one or both).
    const { rows } = await sql<Partial<Row> & { friends_a: string; friends_b: string; mutual_friends: string; outgoing_since: string }>`
      SELECT c.*, r.* FROM (SELECT
          (SELECT count(*) FROM relationships WHERE user_id = ${a} AND type = 1) AS friends_a,
          (SELECT count(*) FROM relationships WHERE user_id = ${b} AND type = 1) AS friends_b,
          ${mutual} AS mutual_friends,
          ${outgoing} AS outgoing_since) AS c
        LEFT JOIN relationships r ON (r.user_id = ${a} AND r.target_id = ${b}) OR (r.user_id = ${b} AND r.target_id = ${a})`.execute(
      this.conn,
    );
    const counts = rows[0]!;
    const of = (owner: string): RelationshipRow | undefined => {
      const row = rows.find((r) => r.user_id === owner);
      if (!row) return undefined;
      const { user_id, target_id, type, nickname, is_spam_request, stranger_request, user_ignored, origin_application_id, since } =
        row as Row;
      return toRow({ user_id, target_id, type, nickname, is_spam_request, stranger_request, user_ignored, origin_application_id, since });
    };
    return {
      mine: of(a),
      theirs: of(b),
      friendCounts: [Number(counts.friends_a), Number(counts.friends_b)],
      mutualFriends: Number(counts.mutual_friends),
      outgoingSince: Number(counts.outgoing_since),
    };
  }

  async put(...rows: RelationshipRow[]): Promise<void> {
    if (rows.length === 0) return;
    const query = this.conn
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
      );
    await this.write(
      query,
      rows.map((r) => `${r.user_id}:${r.target_id}`),
    );
  }

  async delete(userId: string, targetId: string): Promise<void> {
    const query = this.conn.deleteFrom('relationships').where('user_id', '=', userId).where('target_id', '=', targetId);
    await this.write(query, [`${userId}:${targetId}`]);
  }

  async emit(event: DomainEvent): Promise<void> {
    this.events.push(event);
  }

  /** Sends what is held (the writes, then the events in the order they were emitted) and commits. */
  async commit(): Promise<void> {
    const outbox = this.events.length > 0 ? [this.outbox.statement(this.events).compile(this.conn)] : [];
    const statements = this.withWrites(outbox);
    this.pending = [];
    const inlined = statements.map(inlineParameters);
    if (inlined.every((text) => text !== null)) {
      await this.conn.executeQuery(CompiledQuery.raw([...inlined, 'COMMIT'].join(';\n')));
      return;
    }
    for (const statement of statements) await this.conn.executeQuery(statement);
    await sql.raw('COMMIT').execute(this.conn);
  }

  /** Holds a write until the end, or until a read or a write to the same row needs it sent. */
  private async write(query: OperationNodeSource, keys: string[]): Promise<void> {
    if (this.pending.some((w) => w.keys.some((k) => keys.includes(k)))) await this.flush();
    this.pending.push({ node: query.toOperationNode(), keys });
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const statements = this.withWrites([]);
    this.pending = [];
    for (const statement of statements) await this.conn.executeQuery(statement);
  }

  /**
   * The held writes put in front of `statements`: as data-modifying CTEs of the first one when it
   * is a `WITH` statement of raw SQL (the outbox's INSERT+NOTIFY), else as one statement of their
   * own. They touch distinct rows, so one snapshot for all of them changes nothing.
   */
  private withWrites(statements: CompiledQuery[]): CompiledQuery[] {
    if (this.pending.length === 0) return statements;
    const writes = this.pending.map((w) => w.node);
    const ctes = writes.map((_, i) => (i === 0 ? 'WITH ' : '), ') + `w${i} AS (`);
    const [first, ...rest] = statements;
    const head = first?.query;
    let node: RawNode;
    if (head && RawNode.is(head) && /^\s*WITH\s/i.test(head.sqlFragments[0] ?? '')) {
      const [lead, ...tail] = head.sqlFragments;
      node = RawNode.create([...ctes, `), ${lead!.replace(/^\s*WITH\s+/i, '')}`, ...tail], [...writes, ...head.parameters]);
      return [this.compile(node), ...rest];
    }
    node = writes.length === 1 ? RawNode.create(['', ''], writes) : RawNode.create([...ctes, ') SELECT 1'], writes);
    return [this.compile(node), ...statements];
  }

  private compile(node: RawNode): CompiledQuery {
    return sql`${{ toOperationNode: () => node }}`.compile(this.conn);
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

  /** Whether `suggestedUserId` is among `userId`'s friend suggestions. */
  async isSuggested(userId: string, suggestedUserId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('friend_suggestions')
      .select('user_id')
      .where('user_id', '=', userId)
      .where('suggested_user_id', '=', suggestedUserId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async mutualFriends(a: string, b: string): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      SELECT x.target_id AS id FROM relationships x JOIN relationships y ON x.target_id = y.target_id
      WHERE x.user_id = ${a} AND y.user_id = ${b} AND x.type = 1 AND y.type = 1 ORDER BY x.target_id`.execute(this.db);
    return rows.map((r) => r.id);
  }
}
