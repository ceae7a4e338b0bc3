import type { Logger } from '@kith/platform';
import { securityAlertMail } from '../../delivery/mail.templates.js';
import type { MailSender, UserRow } from '../ports.js';
import type { RecoveryLinks } from '../recovery/links.js';
import type { GuessAlerts, GuessKind } from './guesses.js';

/**
 * Mails the owner when a limit on guesses at their account was reached. Sent in the background:
 * the refused request answers as fast as any other, and a mail server's trouble only gets logged.
 */
export class SecurityAlerts implements GuessAlerts {
  constructor(
    private readonly mailer: MailSender,
    private readonly links: RecoveryLinks,
    private readonly log: Logger,
  ) {}

  limitReached(user: UserRow, kind: GuessKind | 'login'): void {
    if (!user.email) return;
    void this.mailer
      .send(user.email, securityAlertMail(user.username, kind, this.links.account()))
      .catch((err: unknown) => this.log.warn({ err: String(err) }, 'security alert mail failed'));
  }
}
