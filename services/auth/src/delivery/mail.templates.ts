/** A mail ready to send: both parts say the same thing. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

interface ActionMail {
  subject: string;
  greeting: string;
  lines: string[];
  action: { label: string; url: string };
  footer: string;
}

/** One layout for every mail that asks the reader to follow a link. */
function actionMail(mail: ActionMail): RenderedMail {
  const text = [mail.greeting, '', ...mail.lines, '', `${mail.action.label}: ${mail.action.url}`, '', mail.footer, ''].join('\n');
  const paragraphs = mail.lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('');
  const html =
    `<!doctype html><html><body style="font-family:sans-serif;color:#222">` +
    `<p>${escapeHtml(mail.greeting)}</p>${paragraphs}` +
    `<p><a href="${escapeHtml(mail.action.url)}" style="background:#5865f2;color:#fff;padding:10px 16px;border-radius:4px;text-decoration:none">${escapeHtml(mail.action.label)}</a></p>` +
    `<p style="color:#666;font-size:12px">${escapeHtml(mail.footer)}</p></body></html>`;
  return { subject: mail.subject, text, html };
}

/** The new-location check: a login from an address the account has not used. */
export function authorizeIpMail(username: string, url: string, location: string | null): RenderedMail {
  return actionMail({
    subject: 'Verify your new login location',
    greeting: `Hi ${username},`,
    lines: [
      `Someone tried to log in to your account from a new location${location ? ` (${location})` : ''}.`,
      'If this was you, verify the location.',
    ],
    action: { label: 'Verify login', url },
    footer: 'If this was not you, change your password right away.',
  });
}

export function passwordResetMail(username: string, url: string): RenderedMail {
  return actionMail({
    subject: 'Reset your password',
    greeting: `Hi ${username},`,
    lines: ['Someone asked to reset the password of your account.'],
    action: { label: 'Reset password', url },
    footer: 'If you did not ask for this, ignore this mail; your password stays the same.',
  });
}

export function emailChangedMail(username: string, url: string): RenderedMail {
  return actionMail({
    subject: 'Your email address was changed',
    greeting: `Hi ${username},`,
    lines: ['The email address of your account was just changed.', 'If this was not you, revert the change within two days.'],
    action: { label: 'Revert the change', url },
    footer: 'Reverting also resets your password and removes multi-factor authentication.',
  });
}

/** What was guessed at, in the owner's words. */
const ATTEMPTED: Record<'second-factor' | 'password' | 'login', string> = {
  'second-factor': 'verify a two-factor code or security key',
  password: 'confirm your password from a signed-in session',
  login: 'log in with a wrong password from places you have not used',
};

/** A limit on guesses at the account's secrets was reached: the owner hears of it once per window. */
export function securityAlertMail(username: string, attempted: keyof typeof ATTEMPTED, url: string): RenderedMail {
  return actionMail({
    subject: 'Unusual activity on your account',
    greeting: `Hi ${username},`,
    lines: [
      `We saw many failed attempts to ${ATTEMPTED[attempted]} on your account, and paused further attempts for a while.`,
      'If this was not you, someone may know your password: change it, and review the devices signed in to your account.',
    ],
    action: { label: 'Change your password', url },
    footer: 'If this was you, wait a little and try again.',
  });
}
