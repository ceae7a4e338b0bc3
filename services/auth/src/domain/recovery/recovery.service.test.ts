import { describe, expect, it } from 'vitest';
import { passwordResetMail } from '../../delivery/mail.templates.js';
import { RecoveryLinks } from './links.js';
import { withOneTimeLogin } from './recovery.service.js';

describe('RecoveryLinks', () => {
  it('when links are built, then they take the platform shapes under the base without a doubled slash', () => {
    const links = new RecoveryLinks('https://kith.test/');
    expect(links.reset('t')).toBe('https://kith.test/reset#token=t');
    expect(links.oneTimeLogin('t')).toBe('https://kith.test/login/one-time?ticket=t');
    expect(links.authorizeIp('t')).toBe('https://kith.test/authorize-ip#token=t');
    expect(links.revert('t')).toBe('https://kith.test/wasntme/t');
  });
});

describe('withOneTimeLogin', () => {
  it('when the reset mail gains the one-time link, then both parts carry it and the reset link stays', () => {
    const mail = withOneTimeLogin(
      passwordResetMail('ada', 'https://kith.test/reset#token=r'),
      'https://kith.test/login/one-time?ticket=a&b',
    );
    expect(mail.subject).toBe('Reset your password');
    expect(mail.text).toContain('Reset password: https://kith.test/reset#token=r');
    expect(mail.text).toContain('https://kith.test/login/one-time?ticket=a&b');
    expect(mail.html).toContain('href="https://kith.test/login/one-time?ticket=a&amp;b"');
    expect(mail.html.endsWith('</body></html>')).toBe(true);
  });
});
