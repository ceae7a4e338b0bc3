import type { RevokedSession } from '../ports.js';

/** The platform's safety hub action types this service records (userdoccers `resources/safety-hub`). */
export const ActionType = { BAN: 0, DISABLE_SUSPICIOUS_ACTIVITY: 8 } as const;
/** Account standing states. */
export const StandingState = { ALL_GOOD: 100, SUSPENDED: 500 } as const;
/** Appeal statuses. */
export const AppealStatus = { REVIEW_PENDING: 1, CLASSIFICATION_INVALIDATED: 3 } as const;

export interface ClassificationRow {
  id: string;
  action_type: number;
  description: string;
  created_at: Date;
  appeal_status: number | null;
}

export interface NewClassification {
  id: string;
  actionType: number;
  description: string;
}

export type ReviewOutcome = { appealId: string } | 'unknown';

export interface StandingPort {
  /**
   * Sets the mark (`suspended_at` or `locked_at`), records the classification and ends every live
   * session with its AUTH_SESSION_CHANGE, in one transaction. Undefined when no such user.
   */
  restrict(userId: string, mark: 'suspended' | 'locked', classification: NewClassification): Promise<RevokedSession[] | undefined>;
  /** False when no such user. */
  requirePasswordUpdate(userId: string): Promise<boolean>;
  /** Clears every mark and invalidates the open classifications. False when no such user. */
  lift(userId: string): Promise<boolean>;
  /** The classifications still in force, oldest first. */
  openClassifications(userId: string): Promise<ClassificationRow[]>;
  /** Records an appeal on one of the user's open classifications (a second one keeps the first's id). */
  requestReview(userId: string, classificationId: string, appealId: string, signal: number, input: string): Promise<ReviewOutcome>;
}
