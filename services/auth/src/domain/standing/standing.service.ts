import { createHash, randomBytes } from 'node:crypto';
import { ApiError } from '@kith/platform';
import { passwordLengthOk } from '../password-rule.js';
import type { OneTimeValues, UserRow } from '../ports.js';
import { ActionType, StandingState, type ClassificationRow, type StandingPort } from './standing.ports.js';

/** What an operator does to an account (the Standing gRPC call and the `kith-operator` command). */
export type OperatorAction = 'suspend' | 'flag_suspicious' | 'require_password_update' | 'lift';

/** A suspended user token lasts this long: enough to read one's standing and appeal. */
const SUSPENDED_TOKEN_TTL_MS = 60 * 60 * 1000;
const LOCKED = { code: 'ACCOUNT_COMPROMISED_RESET_PASSWORD', message: 'Your account has been locked. Reset your password to continue.' };

const tokenKey = (token: string) => `suspended-token:${createHash('sha256').update(token).digest('hex')}`;

/**
 * Account standing: operators suspend, lock (a session flagged suspicious) and require a password
 * update; a login answers each its way; a suspended user reaches only the safety hub, with a
 * suspended user token sent in the body (spec, Authentication 2 and 5; userdoccers `authentication`,
 * `resources/safety-hub`).
 */
export class StandingService {
  constructor(
    private readonly store: StandingPort,
    private readonly tokens: OneTimeValues,
    private readonly ids: { next(): string },
  ) {}

  /** Applies an operator's action; 10013 for an unknown user. Returns how many sessions ended. */
  async apply(userId: string, action: OperatorAction, reason: string): Promise<number> {
    const description = reason || 'Action taken by the Trust & Safety team';
    let outcome: number | undefined;
    if (action === 'suspend' || action === 'flag_suspicious') {
      const mark = action === 'suspend' ? 'suspended' : 'locked';
      const actionType = action === 'suspend' ? ActionType.BAN : ActionType.DISABLE_SUSPICIOUS_ACTIVITY;
      outcome = (await this.store.restrict(userId, mark, { id: this.ids.next(), actionType, description }))?.length;
    } else if (action === 'require_password_update') {
      outcome = (await this.store.requirePasswordUpdate(userId)) ? 0 : undefined;
    } else {
      outcome = (await this.store.lift(userId)) ? 0 : undefined;
    }
    if (outcome === undefined) throw ApiError.of('UNKNOWN_USER');
    return outcome;
  }

  /**
   * At login, once the password is right: a suspended account gets a 403 carrying its suspended user
   * token instead of a session, a locked one a form error until its password is reset. Otherwise the
   * login's required actions.
   */
  async admit(user: UserRow, password: string | undefined): Promise<string[]> {
    if (user.suspended_at) {
      const token = randomBytes(32).toString('base64url');
      await this.tokens.put(tokenKey(token), user.id, SUSPENDED_TOKEN_TTL_MS);
      throw new ApiError(403, { user_id: user.id, suspended_user_token: token } as never);
    }
    if (user.locked_at) throw ApiError.form({ login: LOCKED, password: LOCKED });
    return user.password_update_required ? ['update_password'] : this.passwordActions(password);
  }

  /** What a login's password alone calls for: one that no longer meets the rules must be changed. */
  passwordActions(password: string | undefined): string[] {
    // Registration's rule (one rule for both): a password set before it was stricter may fall short.
    const weak = password !== undefined && !passwordLengthOk(password);
    return weak ? ['update_password'] : [];
  }

  /** The user a suspended user token stands for; 401 50014 for anything else. */
  async suspendedUser(token: string): Promise<string> {
    const userId = token ? await this.tokens.get(tokenKey(token)) : null;
    if (!userId) throw ApiError.of('INVALID_AUTH_TOKEN');
    return userId;
  }

  /** The safety hub object of a user (`GET /safety-hub/@me`, or by suspended user token). */
  async hub(user: Pick<UserRow, 'id' | 'username' | 'suspended_at'>): Promise<Record<string, unknown>> {
    const open = await this.store.openClassifications(user.id);
    const appealable = open.some((c) => c.appeal_status === null);
    return {
      classifications: open.map(classificationView),
      guild_classifications: [],
      account_standing: { state: user.suspended_at ? StandingState.SUSPENDED : StandingState.ALL_GOOD },
      is_dsa_eligible: true,
      is_appeal_eligible: appealable,
      username: user.username,
      appeal_eligibility: appealable ? [1, 2] : [],
    };
  }

  /** Request Classification Review: the appeal's id; 404 for a classification not the user's or no longer in force. */
  async requestReview(userId: string, classificationId: string, signal: number, input: string): Promise<{ appeal_id: string }> {
    const outcome = await this.store.requestReview(userId, classificationId, this.ids.next(), signal, input);
    if (outcome === 'unknown') throw ApiError.notFound();
    return { appeal_id: outcome.appealId };
  }
}

function classificationView(c: ClassificationRow) {
  return {
    id: c.id,
    classification_type: c.action_type === ActionType.BAN ? 1 : 2,
    description: c.description,
    explainer_link: '',
    actions: [{ id: c.id, action_type: c.action_type, descriptions: [c.description] }],
    max_expiration_time: null,
    flagged_content: [],
    ...(c.appeal_status !== null ? { appeal_status: { status: c.appeal_status } } : {}),
    is_coppa: false,
    is_spam: false,
    appeal_ingestion_type: 0,
  };
}
