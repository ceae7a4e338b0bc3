import { randomUUID } from 'node:crypto';
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool, type Transaction } from 'kysely';
import type { Outbox } from '@kith/platform';
import { newInviteCode } from '../domain/invite.codes.js';
import type { InviteRecord, NewInvite } from '../domain/invite.types.js';
import type { CreateOutcome, EventsOf, InviteStore, UseReservation } from '../domain/ports.js';
import type { InvitesDatabase, InvitesTable } from './schema.js';

type Eb = ExpressionBuilder<InvitesDatabase, 'invites'>;
type Row = { [K in keyof InvitesTable]: unknown };

/** Not deleted, not expired, not used up. */
const live = (eb: Eb): Expression<SqlBool> =>
  eb.and([
    eb('deleted_at', 'is', null),
    eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]),
    eb.or([eb('max_uses', '=', 0), eb('uses', '<', eb.ref('max_uses'))]),
  ]);

/** Names the per-guild invite-count lock among this database's advisory locks. */
const GUILD_LOCK_SPACE = 13_003;
/** Draws before giving up on a free code (a collision at 62^10 is already vanishingly rare). */
const CODE_ATTEMPTS = 5;

const SELECTED = [
  'code',
  'type',
  'guild_id',
  'channel_id',
  'inviter_id',
  'max_age',
  'max_uses',
  'uses',
  'temporary',
  'flags',
  'target_type',
  'target_user_id',
  'target_application_id',
  'role_ids',
  'created_at',
  'expires_at',
  'targeted',
] as const;

function toRecord(row: Pick<Row, (typeof SELECTED)[number]>): InviteRecord {
  return row as unknown as InviteRecord;
}

export class PgInviteStore implements InviteStore {
  constructor(
    private readonly db: Kysely<InvitesDatabase>,
    private readonly outbox: Outbox,
  ) {}

  create(invite: NewInvite, maxPerGuild: number, events: EventsOf): Promise<CreateOutcome> {
    return this.db.transaction().execute(async (trx) => {
      if (invite.guild_id) {
        // Creates in one guild take turns, so the count below cannot be overtaken.
        await sql`SELECT pg_advisory_xact_lock(${GUILD_LOCK_SPACE}, hashtext(${invite.guild_id}))`.execute(trx);
        const { count } = await trx
          .selectFrom('invites')
          .select(sql<number>`count(*)::int`.as('count'))
          .where('guild_id', '=', invite.guild_id)
          .where(live)
          .executeTakeFirstOrThrow();
        if (count >= maxPerGuild) return { limit: true as const };
      }
      for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
        const row = await this.insert(trx, invite, invite.code ?? newInviteCode());
        if (row) {
          if (invite.targetFile) {
            const file = invite.targetFile;
            await trx
              .insertInto('invite_target_jobs')
              .values({ code: row.code, file: file.join('\n'), total_users: file.length })
              .execute();
          }
          await this.outbox.enqueue(trx, events(row));
          return { invite: row };
        }
        if (invite.code) return { codeTaken: true as const };
      }
      throw new Error('no free invite code after several draws');
    });
  }

  private async insert(trx: Transaction<InvitesDatabase>, invite: NewInvite, code: string): Promise<InviteRecord | undefined> {
    const row = await trx
      .insertInto('invites')
      .values({
        code,
        type: invite.type,
        guild_id: invite.guild_id,
        channel_id: invite.channel_id,
        inviter_id: invite.inviter_id,
        max_age: invite.max_age,
        max_uses: invite.max_uses,
        temporary: invite.temporary,
        flags: invite.flags,
        target_type: invite.target_type,
        target_user_id: invite.target_user_id,
        target_application_id: invite.target_application_id,
        role_ids: invite.role_ids,
        targeted: invite.targetFile !== undefined,
        expires_at: invite.max_age === 0 ? null : sql<Date>`now() + make_interval(secs => ${invite.max_age})`,
      })
      .onConflict((oc) => oc.column('code').doNothing())
      .returning(SELECTED)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async findReusable(invite: NewInvite): Promise<InviteRecord | undefined> {
    const row = await this.db
      .selectFrom('invites')
      .select(SELECTED)
      .where(live)
      .where('inviter_id', '=', invite.inviter_id)
      .where('type', '=', invite.type)
      .where('channel_id', '=', invite.channel_id)
      .where('max_age', '=', invite.max_age)
      .where('max_uses', '=', invite.max_uses)
      .where('temporary', '=', invite.temporary)
      .where('flags', '=', invite.flags)
      .where(sql<SqlBool>`target_type IS NOT DISTINCT FROM ${invite.target_type}::smallint`)
      .where(sql<SqlBool>`target_user_id IS NOT DISTINCT FROM ${invite.target_user_id}::bigint`)
      .where(sql<SqlBool>`target_application_id IS NOT DISTINCT FROM ${invite.target_application_id}::bigint`)
      .where(sql<SqlBool>`role_ids = ${invite.role_ids}::bigint[]`)
      .where('targeted', '=', false)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async get(code: string): Promise<InviteRecord | undefined> {
    const row = await this.db.selectFrom('invites').select(SELECTED).where('code', '=', code).where(live).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async markViewed(code: string): Promise<void> {
    await this.db
      .updateTable('invites')
      .set({ flags: sql<number>`flags | 2` })
      .where('code', '=', code)
      .where(sql<SqlBool>`flags & 2 = 0`)
      .execute();
  }

  private list(where: (eb: Eb) => Expression<SqlBool>): Promise<InviteRecord[]> {
    return this.db
      .selectFrom('invites')
      .select(SELECTED)
      .where(live)
      .where(where)
      .orderBy('created_at')
      .execute()
      .then((rows) => rows.map(toRecord));
  }

  listByGuild(guildId: string): Promise<InviteRecord[]> {
    return this.list((eb) => eb('guild_id', '=', guildId));
  }

  listByChannel(channelId: string): Promise<InviteRecord[]> {
    return this.list((eb) => eb('channel_id', '=', channelId));
  }

  listFriendInvites(inviterId: string): Promise<InviteRecord[]> {
    return this.list((eb) => eb.and([eb('inviter_id', '=', inviterId), eb('type', '=', 2)]));
  }

  /** Ends every live invite matching `where`, writing their events in the same transaction. */
  private end(where: (eb: Eb) => Expression<SqlBool>, events: EventsOf): Promise<InviteRecord[]> {
    return this.db.transaction().execute(async (trx) => {
      const rows = await trx
        .updateTable('invites')
        .set({ deleted_at: sql<Date>`now()` })
        .where(live)
        .where(where)
        .returning(SELECTED)
        .execute();
      const ended = rows.map(toRecord);
      await this.outbox.enqueue(
        trx,
        ended.flatMap((i) => events(i)),
      );
      return ended;
    });
  }

  async delete(code: string, events: EventsOf): Promise<InviteRecord | undefined> {
    return (await this.end((eb) => eb('code', '=', code), events))[0];
  }

  deleteWhere(where: { guildId?: string; channelId?: string }, events: EventsOf): Promise<InviteRecord[]> {
    if (where.channelId) return this.end((eb) => eb('channel_id', '=', where.channelId!), events);
    if (where.guildId) return this.end((eb) => eb('guild_id', '=', where.guildId!), events);
    return Promise.resolve([]);
  }

  revokeFriendInvites(inviterId: string, events: EventsOf): Promise<InviteRecord[]> {
    return this.end((eb) => eb.and([eb('inviter_id', '=', inviterId), eb('type', '=', 2)]), events);
  }

  async reserveUse(code: string, userId: string, ttlMs: number): Promise<{ invite: InviteRecord; reservation: string } | undefined> {
    // One statement: the row lock orders racing accepts (each re-checks the row as the last one
    // left it), and the reservation row is written with the count it adds to.
    const reservation = randomUUID();
    const { rows } = await sql<Row>`
      WITH r AS (
        UPDATE invites SET pending = pending + 1
        WHERE code = ${code} AND deleted_at IS NULL AND (expires_at IS NULL OR expires_at > now())
          AND max_uses > 0 AND uses + pending < max_uses
        RETURNING ${sql.join(SELECTED.map((c) => sql.ref(c)))}
      ), i AS (
        INSERT INTO invite_use_reservations (id, code, user_id, expires_at)
        SELECT ${reservation}, code, ${userId}, now() + make_interval(secs => ${ttlMs / 1000}) FROM r
      )
      SELECT * FROM r`.execute(this.db);
    return rows[0] ? { invite: toRecord(rows[0] as Pick<Row, (typeof SELECTED)[number]>), reservation } : undefined;
  }

  async releaseUse(reservation: string): Promise<void> {
    await sql`
      WITH d AS (DELETE FROM invite_use_reservations WHERE id = ${reservation} RETURNING code)
      UPDATE invites SET pending = greatest(pending - 1, 0) WHERE code IN (SELECT code FROM d)`.execute(this.db);
  }

  async confirmUse(code: string, reservation: string | null, events: EventsOf): Promise<void> {
    if (!reservation) {
      // A use of an invite without a reservation: an unlimited one (reservations are for max_uses
      // > 0), which no use ever ends, so no event can follow: one statement, no transaction.
      const ended = await sql<Row>`
        UPDATE invites SET uses = uses + 1 WHERE code = ${code} AND max_uses = 0 RETURNING code`.execute(this.db);
      if (ended.rows.length > 0) return;
    }
    await this.db.transaction().execute(async (trx) => {
      if (reservation) {
        const settled = await trx.deleteFrom('invite_use_reservations').where('id', '=', reservation).executeTakeFirst();
        // The reconciler got to it first (an accept slower than the reservation's life): it decided.
        if (settled.numDeletedRows === 0n) return;
      }
      const row = await trx
        .updateTable('invites')
        .set({
          uses: sql<number>`uses + 1`,
          pending: reservation ? sql<number>`greatest(pending - 1, 0)` : sql<number>`pending`,
          // The last use ends the invite (unless an admin deleted it meanwhile).
          deleted_at: sql<Date | null>`CASE WHEN deleted_at IS NULL AND max_uses > 0 AND uses + 1 >= max_uses THEN now() ELSE deleted_at END`,
        })
        .where('code', '=', code)
        .returning([...SELECTED, sql<boolean>`max_uses > 0 AND uses >= max_uses AND deleted_at = now()`.as('ended')])
        .executeTakeFirst();
      if (row?.ended) await this.outbox.enqueue(trx, events(toRecord(row)));
    });
  }

  async claimExpiredReservations(limit: number, leaseMs: number): Promise<UseReservation[]> {
    // The claim is a new expiry: a reconciler that dies holding it leaves it to the next one.
    const { rows } = await sql<{ id: string; code: string; user_id: string }>`
      UPDATE invite_use_reservations SET expires_at = now() + make_interval(secs => ${leaseMs / 1000})
      WHERE id IN (
        SELECT id FROM invite_use_reservations WHERE expires_at < now()
        ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
      )
      RETURNING id, code, user_id`.execute(this.db);
    if (rows.length === 0) return [];
    const invites = await this.db
      .selectFrom('invites')
      .select(SELECTED)
      .where(
        'code',
        'in',
        rows.map((r) => r.code),
      )
      .execute();
    const byCode = new Map(invites.map((i) => [i.code, toRecord(i)]));
    return rows.map((r) => ({ id: r.id, code: r.code, userId: r.user_id, invite: byCode.get(r.code)! }));
  }
}
