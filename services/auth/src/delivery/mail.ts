import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '@kith/platform';
import type { RenderedMail } from './mail.templates.js';
import { redactEmail } from './redact.js';
import type { MailSender } from '../domain/ports.js';

/** SMTP through nodemailer; every mail carries a text and an HTML part. */
export class SmtpMailer implements MailSender {
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(smtpUrl);
  }

  async send(to: string, mail: RenderedMail): Promise<void> {
    await this.transport.sendMail({ from: this.from, to, subject: mail.subject, text: mail.text, html: mail.html });
  }

  close(): Promise<void> {
    this.transport.close();
    return Promise.resolve();
  }
}

/** Development without SMTP_URL: the text part (links included) goes to the log, the address redacted. */
export class LogMailer implements MailSender {
  constructor(private readonly logger: Logger) {}

  send(to: string, mail: RenderedMail): Promise<void> {
    this.logger.info(`mail to ${redactEmail(to)}: ${mail.subject}\n${mail.text}`);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

export function createMailer(config: { SMTP_URL?: string | undefined; MAIL_FROM: string }, logger: Logger): MailSender {
  return config.SMTP_URL ? new SmtpMailer(config.SMTP_URL, config.MAIL_FROM) : new LogMailer(logger);
}
