import { describe, expect, it } from 'vitest';
import { authorizeIpMail, emailChangedMail, passwordResetMail } from './mail.templates.js';

describe('mail templates', () => {
  it('when a mail is rendered, then its text and HTML parts both carry the link', () => {
    for (const mail of [
      authorizeIpMail('a', 'https://x.test/1', null),
      passwordResetMail('a', 'https://x.test/1'),
      emailChangedMail('a', 'https://x.test/1'),
    ]) {
      expect(mail.subject).not.toBe('');
      expect(mail.text).toContain('https://x.test/1');
      expect(mail.html).toContain('href="https://x.test/1"');
    }
  });

  it('when values hold HTML, then the HTML part escapes them and the text part keeps them', () => {
    const mail = authorizeIpMail('<b>eve</b>', 'https://x.test/?a=1&b="2"', null);
    expect(mail.html).toContain('&lt;b&gt;eve&lt;/b&gt;');
    expect(mail.html).toContain('href="https://x.test/?a=1&amp;b=&quot;2&quot;"');
    expect(mail.html).not.toContain('<b>eve');
    expect(mail.text).toContain('Hi <b>eve</b>,');
  });

  it('when the location is unknown, then it is left out', () => {
    expect(authorizeIpMail('a', 'https://x.test', null).text).toContain('from a new location.');
    expect(authorizeIpMail('a', 'https://x.test', 'France').text).toContain('from a new location (France).');
  });
});
