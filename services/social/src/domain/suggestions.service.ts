import { partialUserView, userView, type ContractUser, type DomainEvent } from '@kith/platform';
import type { UserDirectory } from './ports.js';

export interface SuggestionReason {
  type: number;
  platform: string;
  name: string;
}

export interface SuggestionRow {
  user_id: string;
  suggested_user_id: string;
  reasons: SuggestionReason[];
  from_suggested_user_contacts: boolean;
}

export interface SuggestionStore {
  /** Suggestions whose user has no relationship with the owner in either direction (blocks included). */
  listUnrelated(userId: string): Promise<SuggestionRow[]>;
  upsert(row: SuggestionRow, event: DomainEvent): Promise<void>;
  /** Deletes and, if something was deleted, queues the event in the same transaction. */
  delete(userId: string, suggestedUserId: string, event: DomainEvent): Promise<boolean>;
}

export class SuggestionsService {
  constructor(
    private readonly store: SuggestionStore,
    private readonly users: UserDirectory,
  ) {}

  async list(userId: string) {
    const rows = await this.store.listUnrelated(userId);
    const users = await this.users.getUsers(rows.map((r) => r.suggested_user_id));
    return rows.flatMap((r) => {
      const user = users.get(r.suggested_user_id);
      // A suggested account that is gone is no suggestion.
      if (!user) return [];
      return [
        {
          suggested_user: partialUserView(user),
          reasons: r.reasons,
          from_suggested_user_contacts: r.from_suggested_user_contacts,
        },
      ];
    });
  }

  /** `known`: the suggested user when the caller has already read them (no second lookup). */
  async add(row: SuggestionRow, known?: ContractUser): Promise<void> {
    const user = known ?? (await this.users.getUsers([row.suggested_user_id])).get(row.suggested_user_id);
    const data = {
      suggested_user: userView(row.suggested_user_id, user),
      reasons: row.reasons,
      from_suggested_user_contacts: row.from_suggested_user_contacts,
    };
    await this.store.upsert(row, { name: 'FRIEND_SUGGESTION_CREATE', audience: { users: [row.user_id] }, data });
  }

  async remove(userId: string, suggestedUserId: string): Promise<void> {
    await this.store.delete(userId, suggestedUserId, {
      name: 'FRIEND_SUGGESTION_DELETE',
      audience: { users: [userId] },
      data: { suggested_user_id: suggestedUserId },
    });
  }
}
