import { randomInt } from 'node:crypto';

export interface UsernameLookup {
  /** Which of the given unique values are taken (case-insensitive). */
  taken(values: { username: string }): Promise<string[]>;
}

const ADJECTIVES = ['quiet', 'brave', 'lucky', 'sunny', 'misty', 'swift', 'clever', 'gentle', 'fuzzy', 'cosmic', 'amber', 'silver'];
const NOUNS = ['otter', 'falcon', 'maple', 'comet', 'pebble', 'lynx', 'harbor', 'willow', 'badger', 'ember', 'raven', 'koala'];

/** Username suggestions and availability, by the platform's rules (see `username` in http/schemas.ts). */
export class UsernamesService {
  constructor(
    private readonly lookup: UsernameLookup,
    /** Derives a free username from a basis (AccountsService.suggestUsername). */
    private readonly suggestFrom: (basis: string) => Promise<string>,
  ) {}

  /** A free username from the display name, or from a random word pair when none is given. */
  suggest(globalName?: string): Promise<string> {
    const basis = globalName?.trim() ? globalName : `${ADJECTIVES[randomInt(ADJECTIVES.length)]}.${NOUNS[randomInt(NOUNS.length)]}`;
    return this.suggestFrom(basis);
  }

  async isTaken(username: string): Promise<boolean> {
    return (await this.lookup.taken({ username })).length > 0;
  }
}
