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
  /** Login tickets: what the password login found the account must do (`required_actions`). */
  requiredActions?: string[];
  /** Elevation tickets: the session that asked, the only one that may use the ticket. */
  sessionId?: string;
}

/** Where tickets live (Redis): by the hash of the ticket, with a time to live and an attempt counter. */
export interface TicketStore {
  put(hash: string, record: TicketRecord, ttlSeconds: number): Promise<void>;
  /** Reads without counting an attempt. */
  get(hash: string): Promise<TicketRecord | undefined>;
  /**
   * Counts one attempt and answers the record, in one step; nothing when the ticket is unknown or
   * its attempts were already spent (by concurrent attempts too).
   */
  attempt(hash: string, maxAttempts: number): Promise<TicketRecord | undefined>;
  /** Deletes the ticket; true only for the one caller that deleted it. */
  take(hash: string): Promise<boolean>;
}

export interface TicketOptions {
  ttlSeconds: number;
  maxAttempts: number;
}

const hashTicket = (ticket: string): string => createHash('sha256').update(ticket).digest('base64url');

function matching(record: TicketRecord | undefined, purpose: TicketPurpose, loginInstanceId?: string | null): TicketRecord {
  if (!record || record.purpose !== purpose) throw ApiError.of('MFA_INVALID_TICKET');
  if (loginInstanceId && record.loginInstanceId !== loginInstanceId) throw ApiError.of('MFA_INVALID_TICKET');
  return record;
}

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

  /** The live ticket of this purpose (and login instance, when given), or 60006; no attempt is counted. */
  async open(ticket: string, purpose: TicketPurpose, loginInstanceId?: string | null): Promise<TicketRecord> {
    const record = ticket.length <= 256 ? await this.store.get(hashTicket(ticket)) : undefined;
    return matching(record, purpose, loginInstanceId);
  }

  /**
   * One attempt at the ticket's code, counted before the code is checked: 60006 once the ticket's
   * attempts are spent, whatever the code, so concurrent attempts learn nothing past the limit.
   */
  async attempt(ticket: string, purpose: TicketPurpose, loginInstanceId?: string | null): Promise<TicketRecord> {
    const record = ticket.length <= 256 ? await this.store.attempt(hashTicket(ticket), this.options.maxAttempts) : undefined;
    return matching(record, purpose, loginInstanceId);
  }

  /** A wrong code: 60008 (the attempt was counted when it began). */
  reject(): never {
    throw ApiError.of('MFA_INVALID_CODE');
  }

  /** Uses the ticket up; a concurrent use that lost the race gets 60006. */
  async consume(ticket: string): Promise<void> {
    if (!(await this.store.take(hashTicket(ticket)))) throw ApiError.of('MFA_INVALID_TICKET');
  }
}
