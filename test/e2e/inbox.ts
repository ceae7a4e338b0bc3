import { inject } from 'vitest';

/** A mail the system sent, as the loopback SMTP server of the end-to-end setup received it. */
export interface InboxMail {
  subject: string;
  text: string;
}

/** A text the system sent, as the loopback Twilio peer received it. */
export interface InboxText {
  to: string;
  body: string;
}

async function poll<T>(path: string, count: number, timeoutMs: number): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await (await fetch(`${inject('inboxUrl')}${path}`)).json()) as T[];
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The mails sent to `to` so far, waiting (bounded) until there are `count`. */
export const mailsTo = (to: string, count = 1, timeoutMs = 10_000): Promise<InboxMail[]> =>
  poll<InboxMail>(`/mails?to=${encodeURIComponent(to)}`, count, timeoutMs);

/** The texts sent to `to` so far, waiting (bounded) until there are `count`. */
export const textsTo = (to: string, count = 1, timeoutMs = 10_000): Promise<InboxText[]> =>
  poll<InboxText>(`/texts?to=${encodeURIComponent(to)}`, count, timeoutMs);

/** The six-digit code of the `count`-th text to `phone`. */
export async function codeTextedTo(phone: string, count = 1): Promise<string> {
  const texts = await textsTo(phone, count);
  const code = /\b(\d{6})\b/.exec(texts[count - 1]?.body ?? '')?.[1];
  if (!code) throw new Error(`no code was texted to ${phone}`);
  return code;
}

/** The first link of the latest mail to `to` whose URL matches `pattern` (its capture group, or the whole URL). */
export async function linkMailedTo(to: string, pattern: RegExp, count = 1): Promise<string> {
  const mails = await mailsTo(to, count);
  for (const mail of mails.slice().reverse()) {
    const match = pattern.exec(mail.text);
    if (match) return match[1] ?? match[0];
  }
  throw new Error(`no mail to ${to} has a link matching ${pattern}`);
}
