import { ApiError, type DomainEvent } from '@kith/platform';
import type { ContactSyncService } from './contact-sync.service.js';
import type { UserDirectory } from './ports.js';
import type { SuggestionsService } from './suggestions.service.js';

/** Contact sync suggestions setting: suggested only to those whose contacts the user also has, or to anyone who has theirs. */
export const MUTUAL_CONTACT_INFO_ONLY = 1;
export const ANYONE_WITH_CONTACT_INFO = 2;
/** Friend suggestion reason EXTERNAL_FRIEND, from the `contacts` platform. */
const EXTERNAL_FRIEND = 1;

export interface ContactConnection {
  user_id: string;
  name: string;
  friend_sync: boolean;
  allowed_in_suggestions: number | null;
}

/** Someone who synced contacts: their setting, and whether their last sync found the user asking. */
export interface ContactHolder {
  user_id: string;
  allowed_in_suggestions: number | null;
  has_me: boolean;
}

export interface ContactBook {
  connection(userId: string): Promise<ContactConnection | undefined>;
  connect(connection: Omit<ContactConnection, 'allowed_in_suggestions'>, event: DomainEvent): Promise<ContactConnection>;
  disconnect(userId: string, event: DomainEvent): Promise<boolean>;
  record(userId: string, allowedInSuggestions: number, matchedIds: readonly string[]): Promise<void>;
  holders(userId: string, ids: readonly string[]): Promise<ContactHolder[]>;
  holdersOf(userId: string): Promise<ContactHolder[]>;
}

/** Auth's side: who, among a device's contacts, lets themselves be found. */
export interface ContactDirectory {
  findByContacts(userId: string, contacts: string[]): Promise<string[]>;
}

export interface SyncRequest {
  contacts: string[];
  background: boolean;
  allowedInSuggestions: number;
  addReverse: boolean;
}

/**
 * Contact sync (the platform's `contacts` connection): the device's contacts go to auth, which
 * answers who among them is findable; those become friend suggestions (FRIEND_SUGGESTION_CREATE)
 * and one bulk-add token covers them for POST /users/@me/relationships/bulk.
 */
export class ContactBookService {
  constructor(
    private readonly book: ContactBook,
    private readonly directory: ContactDirectory,
    private readonly suggestions: SuggestionsService,
    private readonly tokens: Pick<ContactSyncService, 'issue'>,
    private readonly users: Pick<UserDirectory, 'getUsers'>,
  ) {}

  async connect(userId: string, name: string, friendSync: boolean) {
    const row = await this.book.connect({ user_id: userId, name, friend_sync: friendSync }, connectionsUpdate(userId));
    return connectionView(row);
  }

  async disconnect(userId: string): Promise<void> {
    if (!(await this.book.disconnect(userId, connectionsUpdate(userId)))) throw ApiError.of('UNKNOWN_CONNECTION');
  }

  async settings(userId: string) {
    const row = await this.connection(userId);
    return { allowed_in_suggestions: row.allowed_in_suggestions ?? ANYONE_WITH_CONTACT_INFO };
  }

  async sync(userId: string, request: SyncRequest) {
    await this.connection(userId);
    const found = await this.directory.findByContacts(userId, request.contacts);
    await this.book.record(userId, request.allowedInSuggestions, found);
    // Suggested when their own setting allows it: anyone with their contact info, or only those
    // they have in their contacts too. Someone who never synced has said nothing narrower.
    const holders = new Map((await this.book.holders(userId, found)).map((h) => [h.user_id, h]));
    const forward = found.flatMap((id) => {
      const holder = holders.get(id);
      if (holder?.allowed_in_suggestions === MUTUAL_CONTACT_INFO_ONLY && !holder.has_me) return [];
      return [{ id, hasMe: holder?.has_me ?? false }];
    });
    const forwardIds = new Set(forward.map((f) => f.id));
    // Those who have the user in their contacts and let anyone with their info have them suggested.
    const reverse = request.addReverse
      ? (await this.book.holdersOf(userId))
          .filter((h) => h.allowed_in_suggestions !== MUTUAL_CONTACT_INFO_ONLY && !forwardIds.has(h.user_id))
          .map((h) => ({ id: h.user_id, hasMe: true }))
      : [];
    const matched = [...forward, ...reverse];
    const users = await this.users.getUsers(matched.map((s) => s.id));
    for (const { id, hasMe } of matched) {
      const user = users.get(id);
      if (!user) continue;
      // The contact's name stays on the device: the reason names them as the platform shows them.
      await this.suggestions.add(
        {
          user_id: userId,
          suggested_user_id: id,
          reasons: [{ type: EXTERNAL_FRIEND, platform: 'contacts', name: user.globalName ?? user.username }],
          from_suggested_user_contacts: hasMe,
        },
        user,
      );
    }
    const suggested = new Set(matched.map((s) => s.id));
    // Listed only when no relationship stands in the way (friends, requests, blocks either way).
    const listed = (await this.suggestions.list(userId)).filter((s) => suggested.has(s.suggested_user.id));
    const bulkAddToken =
      listed.length > 0
        ? await this.tokens.issue(
            userId,
            listed.map((s) => s.suggested_user.id),
          )
        : null;
    return { bulk_add_token: bulkAddToken, friend_suggestions: request.background ? [] : listed };
  }

  private async connection(userId: string): Promise<ContactConnection> {
    const row = await this.book.connection(userId);
    if (!row) throw ApiError.of('UNKNOWN_CONNECTION');
    return row;
  }
}

const connectionsUpdate = (userId: string): DomainEvent => ({ name: 'USER_CONNECTIONS_UPDATE', audience: { users: [userId] }, data: {} });

/** The platform's connection object for a contact-sync connection (never shown on profiles). */
function connectionView(row: ContactConnection) {
  return {
    id: row.user_id,
    type: 'contacts',
    name: row.name,
    verified: true,
    visibility: 0,
    friend_sync: row.friend_sync,
    show_activity: false,
    two_way_link: false,
    metadata_visibility: 0,
    revoked: false,
    integrations: [],
  };
}
