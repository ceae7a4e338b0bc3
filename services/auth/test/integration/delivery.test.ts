import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpMailer } from '../../src/delivery/mail.js';
import { authorizeIpMail, passwordResetMail } from '../../src/delivery/mail.templates.js';
import { SmsDeliveryError, TwilioSms } from '../../src/delivery/sms.js';
import { SmtpPeer, TwilioPeer } from './delivery.peers.js';

let smtp: SmtpPeer;
let twilio: TwilioPeer;

beforeAll(async () => {
  [smtp, twilio] = await Promise.all([SmtpPeer.start(), TwilioPeer.start()]);
});

afterAll(async () => {
  await Promise.all([smtp?.close(), twilio?.close()]);
});

describe('SmtpMailer against a real SMTP server', () => {
  it('when a templated mail is sent, then the server receives From, To, Subject and matching text and HTML parts', async () => {
    const mailer = new SmtpMailer(smtp.url, 'Kith <no-reply@kith.test>');
    const to = `reader-${Date.now()}@example.com`;
    const link = 'https://kith.test/authorize-ip?token=abc&x=<1>';
    await mailer.send(to, authorizeIpMail('alice', link, 'Germany'));
    await mailer.close();

    const mail = smtp.mails.find((m) => m.envelope.to.includes(to));
    expect(mail).toBeDefined();
    expect(mail!.envelope.from).toBe('no-reply@kith.test');
    expect(mail!.headers.from).toBe('Kith <no-reply@kith.test>');
    expect(mail!.headers.to).toBe(to);
    expect(mail!.headers.subject).toBe('Verify your new login location');
    expect(mail!.headers['content-type']).toMatch(/^multipart\/alternative/);
    const text = mail!.parts.find((p) => p.contentType === 'text/plain');
    const html = mail!.parts.find((p) => p.contentType === 'text/html');
    expect(text?.body).toContain('Hi alice,');
    expect(text?.body).toContain(`Verify login: ${link}`);
    expect(text?.body).toContain('(Germany)');
    expect(html?.body).toContain('href="https://kith.test/authorize-ip?token=abc&amp;x=&lt;1&gt;"');
    expect(html?.body).toContain('<p>Hi alice,</p>');
  });

  it('when the SMTP server cannot be reached, then send rejects', async () => {
    const mailer = new SmtpMailer('smtp://127.0.0.1:1', 'no-reply@kith.test');
    await expect(mailer.send('x@example.com', passwordResetMail('bob', 'https://kith.test/reset'))).rejects.toThrow();
    await mailer.close();
  });
});

describe('TwilioSms against a loopback server speaking the Messages API', () => {
  const sms = () =>
    new TwilioSms({ baseUrl: twilio.baseUrl, accountSid: twilio.accountSid, authToken: twilio.authToken, from: '+15005550006' });

  it('when a text is sent, then the provider receives To, From and Body with the account credentials', async () => {
    twilio.failWith = undefined;
    await sms().send('+14155550123', 'Your code is 123456');
    expect(twilio.received).toContainEqual({ to: '+14155550123', from: '+15005550006', body: 'Your code is 123456' });
  });

  it('when the credentials are wrong, then send rejects with the status Twilio answered', async () => {
    const wrong = new TwilioSms({ baseUrl: twilio.baseUrl, accountSid: twilio.accountSid, authToken: 'wrong', from: '+15005550006' });
    const error = await wrong.send('+14155550123', 'hi').catch((err: unknown) => err);
    expect(error).toBeInstanceOf(SmsDeliveryError);
    expect((error as SmsDeliveryError).status).toBe(401);
    expect((error as Error).message).toContain('code 20003');
  });

  it('when the provider refuses the number, then send rejects without echoing the message text', async () => {
    twilio.failWith = { status: 400, code: 21211, message: "The 'To' number is not a valid phone number." };
    try {
      const error = await sms()
        .send('+14155550123', 'secret 654321')
        .catch((err: unknown) => err);
      expect(error).toBeInstanceOf(SmsDeliveryError);
      expect((error as Error).message).toContain('21211');
      expect((error as Error).message).not.toContain('654321');
    } finally {
      twilio.failWith = undefined;
    }
  });

  it('when the provider cannot be reached, then send rejects with a delivery error', async () => {
    const gone = new TwilioSms({ baseUrl: 'http://127.0.0.1:1', accountSid: 'AC1', authToken: 't', from: '+15005550006' });
    await expect(gone.send('+14155550123', 'hi')).rejects.toBeInstanceOf(SmsDeliveryError);
  });
});
