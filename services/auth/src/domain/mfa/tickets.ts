import { createHash, randomBytes } from 'node:crypto';
import { ApiError } from '@kith/platform';

/** What a ticket is for: finishing a login, elevating a signed-in session, or completing a password reset. */
export type TicketPurpose = 'login' | 'elevation' | 'reset';

export interface TicketRecord {
  userId: string;
  purpose: TicketPurpose;
  /** Login tickets: the login instance they were issued to. */
  loginInstanceId?: string;
  /** Login tickets: the login asked to restore a disabled or deleted account once MFA passes. */
  undelete?: boolean;
}

/** Where tickets live (Redis): by the hash of the ticket, with a time to live and an attempt counter. */
export interface TicketStore {
  put(hash: string, record: TicketRecord, ttlSeconds: number): Promise<void>;
  get(hash: string): Promise<TicketRecord | undefined>;
  /** Counts one failed attempt; returns the attempts so far. */
  fail(hash: string): Promise<number>;
  /** Deletes the ticket; true only for the one caller that deleted it. */
  take(hash: string): Promise<boolean>;
}

export interface TicketOptions {
  ttlSeconds: number;
  maxAttempts: number;
}

const hashTicket = (ticket: string): string => createHash('sha256').update(ticket).digest('base64url');

/** Single-use, short-lived MFA tickets, stored only as hashes. */
export class Tickets {
  constructor(
    private readonly store: TicketStore,
    private readonly options: TicketOptions,
  ) {}

  /** A new ticket: the user id (as the platform's tickets carry it) and 256 random bits. */
  async issue(record: TicketRecord): Promise<string> {
    const ticket = `${Buffer.from(record.userId).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
    await this.store.put(hashTicket(ticket), record, this.options.ttlSeconds);
    return ticket;
  }

  /** The live ticket of this purpose (and login instance, when given), or 60006. */
  async open(ticket: string, purpose: TicketPurpose, loginInstanceId?: string | null): Promise<TicketRecord> {
    const record = ticket.length <= 256 ? await this.store.get(hashTicket(ticket)) : undefined;
    if (!record || record.purpose !== purpose) throw ApiError.of('MFA_INVALID_TICKET');
    if (loginInstanceId && record.loginInstanceId !== loginInstanceId) throw ApiError.of('MFA_INVALID_TICKET');
    return record;
  }

  /** A wrong code: 60008, and once the attempts run out the ticket is gone. */
  async reject(ticket: string): Promise<never> {
    const hash = hashTicket(ticket);
    if ((await this.store.fail(hash)) >= this.options.maxAttempts) await this.store.take(hash);
    throw ApiError.of('MFA_INVALID_CODE');
  }

  /** Uses the ticket up; a concurrent use that lost the race gets 60006. */
  async consume(ticket: string): Promise<void> {
    if (!(await this.store.take(hashTicket(ticket)))) throw ApiError.of('MFA_INVALID_TICKET');
  }
}
