import { ApiError } from '@kith/platform';
import type { UserRow } from '../ports.js';
import type { SessionRequest } from '../sessions.service.js';
import { loginSettings, requiredActionsOf } from '../user.view.js';
import type { WebAuthn } from './webauthn.js';

export interface PasswordlessPorts {
  webauthn: Pick<WebAuthn, 'finishPasswordless'>;
  users: { user(userId: string): Promise<UserRow> };
  sessions: { create(userId: string, request: SessionRequest): Promise<{ token: string }> };
  /** Suspended and locked accounts get no session; required actions travel with the token. */
  standing?: { admit(user: UserRow, password: string | undefined): Promise<string[]> };
}

/** Finish Passwordless Login: a discoverable credential's assertion opens a session for its owner. */
export class PasswordlessLogin {
  constructor(private readonly ports: PasswordlessPorts) {}

  async finish(input: { ticket: string; credential: string }, request: SessionRequest) {
    const userId = await this.ports.webauthn.finishPasswordless(input);
    const user = await this.ports.users.user(userId);
    if (user.deleted_at) throw ApiError.of('ACCOUNT_SCHEDULED_FOR_DELETION');
    if (user.disabled_at) throw ApiError.of('ACCOUNT_DISABLED');
    const requiredActions = (await this.ports.standing?.admit(user, undefined)) ?? [];
    const { token } = await this.ports.sessions.create(user.id, request);
    return {
      user_id: user.id,
      token,
      user_settings: loginSettings(user),
      ...requiredActionsOf(requiredActions),
    };
  }
}
