import type { Logger, ServiceClient } from '@kith/platform';
import type { InvitesService } from '@kith/proto/invites/v1/invites';
import type { InviteRedeemer } from '../domain/accounts.service.js';

/**
 * Registration's `invite` over the invites service. Its refusal (unknown, used up, banned) or its
 * absence is logged, not answered: the account was made and stays made.
 */
export class GrpcInviteRedeemer implements InviteRedeemer {
  constructor(
    private readonly invites: ServiceClient<typeof InvitesService>,
    private readonly logger: Logger,
  ) {}

  async redeem(code: string, userId: string): Promise<boolean> {
    try {
      const { errorCode, showVerificationForm } = await this.invites.acceptInvite({ code, userId });
      if (errorCode !== 0) this.logger.info({ user_id: userId, error_code: errorCode }, 'registration invite refused');
      return errorCode === 0 && showVerificationForm;
    } catch (err) {
      this.logger.warn({ err, user_id: userId }, 'registration invite not accepted: invites unavailable');
      return false;
    }
  }
}
