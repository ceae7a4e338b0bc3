import { randomInt } from 'node:crypto';
import { ApiError } from '@kith/platform';
import { DuplicateBotTagError, DuplicateIdError, type PublicUserRow, type UsersPort } from './ports.js';
import type { SessionsService } from './sessions.service.js';

/** The platform's username bounds; an application's name may be longer or shorter. */
const MIN_NAME = 2;
const MAX_NAME = 32;
/** Tries at a free discriminator before giving up: 9,999 bots of one name would be needed to fail. */
const ATTEMPTS = 8;

/** What a bot's username can be made of: the name without control characters, `@`, `#`, `:` or backticks. */
export function botUsername(name: string): string {
  // The characters the platform refuses in usernames, and invisible ones.
  const cleaned = name
    .replace(/[\p{Cc}\p{Cf}@#:`]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
  const trimmed = [...cleaned].slice(0, MAX_NAME).join('').trim();
  return [...trimmed].length >= MIN_NAME ? trimmed : `${trimmed}bot`.padEnd(MIN_NAME, '_');
}

/** A four-digit discriminator, never 0000 (people's migrated usernames have "0"). */
const discriminator = (): string => String(randomInt(1, 10_000)).padStart(4, '0');

/**
 * Applications' bot users: `bot: true`, no email, password or session of their own. Their names
 * repeat across applications; the discriminator tells them apart.
 */
export class BotUsers {
  constructor(
    private readonly users: Pick<UsersPort, 'insert'>,
    private readonly ids: { next(): bigint | string },
  ) {}

  async create(name: string): Promise<PublicUserRow> {
    const username = botUsername(name);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        return await this.users.insert({
          id: String(this.ids.next()),
          username,
          discriminator: discriminator(),
          bot: true,
          global_name: null,
          email: null,
          phone: null,
          password_hash: null,
          date_of_birth: null,
          avatar: null,
          disabled_at: null,
          deleted_at: null,
        });
      } catch (err) {
        if (!(err instanceof DuplicateBotTagError) && !(err instanceof DuplicateIdError)) throw err;
      }
    }
    throw ApiError.form({
      username: { code: 'USERNAME_TOO_MANY_USERS', message: 'Too many users have this username, please try another.' },
    });
  }
}

/** Bots' tokens, issued to their developers through integrations. */
export class BotTokens {
  constructor(
    private readonly users: Pick<UsersPort, 'findById'>,
    private readonly sessions: Pick<SessionsService, 'replaceBotToken'>,
  ) {}

  /** The bot's new token (every earlier one revoked); only a live bot user has one, never a person. */
  async reset(userId: string): Promise<string> {
    const user = await this.users.findById(userId);
    if (!user?.bot || user.deleted_at || user.disabled_at) throw ApiError.of('UNKNOWN_USER');
    return this.sessions.replaceBotToken(userId);
  }
}
