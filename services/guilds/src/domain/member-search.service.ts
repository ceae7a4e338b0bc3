import { ApiError, type ContractUser, type MemberData } from '@kith/platform';
import { actorIn } from './guild.guard.js';
import { toMember } from './guild.view.js';
import { Permission } from './permissions.js';
import type { GuildsStore, UserDirectory } from './ports.js';
import type { MemberRecord } from './records.js';

/** The most members a prefix query or an id list answers (the platform's caps). */
export const SEARCH_MAX = 100;
/** One page of the whole member list. */
export const LIST_PAGE = 1000;
/** Members the whole list reads per round while matching a prefix. */
const SCAN_PAGE = 1000;

/** Members whose ids, or a prefix of whose names, the gateway's Request Guild Members names. */
export type MemberSearch =
  | { kind: 'ids'; userIds: string[] }
  | { kind: 'query'; query: string; limit: number }
  | { kind: 'all'; after: string | null; privileged: boolean };

export interface MemberSearchResult {
  members: MemberData[];
  notFound: string[];
}

const WHOLE_LIST = Permission.MANAGE_ROLES | Permission.KICK_MEMBERS | Permission.BAN_MEMBERS;

/** Request Guild Members (op 8) for a member of the guild, who sees members as the member list shows them. */
export class MemberSearchService {
  constructor(
    private readonly store: GuildsStore,
    private readonly users: UserDirectory,
  ) {}

  async search(guildId: string, requesterId: string, search: MemberSearch): Promise<MemberSearchResult> {
    const actor = await actorIn(this.store, guildId, requesterId);
    if (search.kind === 'ids') {
      const ids = [...new Set(search.userIds)].slice(0, SEARCH_MAX);
      const found = await this.withUsers(await this.store.members.byIds(guildId, ids));
      const present = new Set(found.map((m) => m.userId));
      return { members: found, notFound: ids.filter((id) => !present.has(id)) };
    }
    if (search.kind === 'all') {
      // Any one of the three is enough, as the platform's clients need it for their member list.
      if (!search.privileged && (actor.permissions & WHOLE_LIST) === 0n) throw ApiError.of('MISSING_PERMISSIONS');
      return { members: await this.withUsers(await this.store.members.list(guildId, search.after, LIST_PAGE)), notFound: [] };
    }
    return {
      members: await this.prefixed(guildId, search.query.toLowerCase(), Math.min(Math.max(search.limit, 1), SEARCH_MAX)),
      notFound: [],
    };
  }

  /**
   * Usernames and global names are auth's: the members are read a page at a time and matched
   * with their users, until `limit` match or the list ends. A guild's whole list is the bound.
   */
  private async prefixed(guildId: string, prefix: string, limit: number): Promise<MemberData[]> {
    const matched: MemberData[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await this.store.members.list(guildId, after, SCAN_PAGE);
      for (const member of await this.withUsers(page)) {
        if (matches(member, prefix)) matched.push(member);
        if (matched.length === limit) return matched;
      }
      if (page.length < SCAN_PAGE) return matched;
      after = page.at(-1)!.user_id;
    }
  }

  private async withUsers(members: MemberRecord[]): Promise<MemberData[]> {
    const users = await this.users.users(members.map((m) => m.user_id));
    return members.map((m) => toMember(m, users.get(m.user_id)));
  }
}

function matches(member: MemberData, prefix: string): boolean {
  const user: ContractUser | undefined = member.user;
  return [member.nick, user?.username, user?.globalName].some((name) => !!name && name.toLowerCase().startsWith(prefix));
}
