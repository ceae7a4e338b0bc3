import { randomBytes, randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A text Twilio's Messages API accepted, as the loopback provider saw it. */
export interface ReceivedSms {
  to: string;
  from: string;
  body: string;
}

/**
 * A loopback HTTP server speaking Twilio's Messages API for one account: it checks the path, the
 * Basic credentials and the form fields, and answers 201 with a message resource (or Twilio's
 * error bodies), as the real API does.
 */
/** A North American number nobody has used yet (about 8·10^9 of them). */
export const newPhone = (): string =>
  `+1${[201, 212, 415, 650][randomInt(4)]}${randomInt(200, 1000)}${String(randomInt(0, 10_000)).padStart(4, '0')}`;

export class TwilioPeer {
  readonly received: ReceivedSms[] = [];
  /** When set, the next requests are refused with this status and Twilio's error body. */
  failWith: { status: number; code: number; message: string } | undefined;
  private waiters: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    readonly accountSid: string,
    readonly authToken: string,
  ) {}

  static async start(accountSid = `AC${randomBytes(16).toString('hex')}`, authToken = 'loopback-auth-token'): Promise<TwilioPeer> {
    const server = createServer();
    const peer = new TwilioPeer(server, accountSid, authToken);
    server.on(
      'request',
      (req: IncomingMessage, res: ServerResponse) =>
        void peer.handle(req).then(({ status, body }) => {
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return peer;
  }

  /** The auth service's settings that send its texts here. */
  env(from = '+15005550006'): Record<string, string> {
    return {
      SMS_MODE: 'twilio',
      TWILIO_BASE_URL: this.baseUrl,
      TWILIO_ACCOUNT_SID: this.accountSid,
      TWILIO_AUTH_TOKEN: this.authToken,
      TWILIO_FROM: from,
    };
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The texts sent to `to` so far, waiting (bounded) for the first one. */
  async messagesTo(to: string, count = 1, timeoutMs = 5000): Promise<ReceivedSms[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.filter((m) => m.to === to);
      if (found.length >= count || Date.now() > deadline) return found;
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  /** The six-digit code of the latest text to `to`. */
  async codeSentTo(to: string, count = 1): Promise<string> {
    const messages = await this.messagesTo(to, count);
    const code = /\b(\d{6})\b/.exec(messages.at(-1)?.body ?? '')?.[1];
    if (!code) throw new Error(`no code was texted to ${to}`);
    return code;
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: object }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const expectedPath = `/2010-04-01/Accounts/${this.accountSid}/Messages.json`;
    if (req.method !== 'POST' || req.url !== expectedPath) return twilioError(404, 20404, 'The requested resource was not found');
    const expectedAuth = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`;
    if (req.headers.authorization !== expectedAuth) return twilioError(401, 20003, 'Authenticate');
    if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded'))
      return twilioError(400, 21619, 'Unsupported content type');
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const [to, from, body] = [form.get('To'), form.get('From'), form.get('Body')];
    if (!to) return twilioError(400, 21604, "A 'To' phone number is required.");
    if (!from) return twilioError(400, 21603, "A 'From' phone number is required.");
    if (!body) return twilioError(400, 21602, 'Message body is required.');
    if (this.failWith) return twilioError(this.failWith.status, this.failWith.code, this.failWith.message);
    this.received.push({ to, from, body });
    for (const wake of this.waiters.splice(0)) wake();
    const sid = `SM${Math.random().toString(16).slice(2).padEnd(32, '0').slice(0, 32)}`;
    return {
      status: 201,
      body: {
        sid,
        account_sid: this.accountSid,
        to,
        from,
        body,
        status: 'queued',
        num_segments: '1',
        direction: 'outbound-api',
        api_version: '2010-04-01',
        uri: `${expectedPath.replace('.json', '')}/${sid}.json`,
      },
    };
  }
}

function twilioError(status: number, code: number, message: string) {
  return { status, body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status } };
}

/** A received mail: its top headers and its parts, decoded. */
export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  headers: Record<string, string>;
  parts: { contentType: string; body: string }[];
}

/** Just enough MIME for what our mailer sends: one level of multipart, 7bit/quoted-printable/base64 parts. */
export function parseMime(raw: string): Omit<ReceivedMail, 'envelope'> {
  const [head, body] = splitOnce(raw.replace(/\r\n/g, '\n'), '\n\n');
  const headers = parseHeaders(head);
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  const sections = boundary
    ? body
        .split(`--${boundary}`)
        .slice(1, -1)
        .map((section) => section.replace(/^\n/, ''))
    : [
        `content-type: ${headers['content-type'] ?? 'text/plain'}\ncontent-transfer-encoding: ${headers['content-transfer-encoding'] ?? '7bit'}\n\n${body}`,
      ];
  const parts = sections.map((section) => {
    const [partHead, partBody] = splitOnce(section, '\n\n');
    const partHeaders = parseHeaders(partHead);
    return {
      contentType: (partHeaders['content-type'] ?? '').split(';')[0]!.trim(),
      body: decode(partBody, partHeaders['content-transfer-encoding']),
    };
  });
  return { headers, parts };
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + separator.length)];
}

function parseHeaders(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  // Folded header lines continue with whitespace.
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const [name, value] = splitOnce(line, ':');
    if (value) headers[name.trim().toLowerCase()] = value.trim();
  }
  return headers;
}

function decode(body: string, encoding = '7bit'): string {
  const trimmed = body.replace(/\n$/, '');
  if (/quoted-printable/i.test(encoding))
    return Buffer.from(
      trimmed.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  if (/base64/i.test(encoding)) return Buffer.from(trimmed.replace(/\s+/g, ''), 'base64').toString('utf8');
  return trimmed;
}

/** A real SMTP server on loopback that keeps every mail it accepts, parsed. */
/** A mail's plain-text part ('' when there is none). */
export const textOf = (mail: ReceivedMail | undefined): string => mail?.parts.find((p) => p.contentType === 'text/plain')?.body ?? '';

export class SmtpPeer {
  private constructor(
    private readonly server: SMTPServer,
    readonly mails: ReceivedMail[],
  ) {}

  static async start(): Promise<SmtpPeer> {
    const mails: ReceivedMail[] = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', callback);
        stream.on('end', () => {
          mails.push({
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
            },
            ...parseMime(Buffer.concat(chunks).toString('utf8')),
          });
          callback();
        });
      },
    });
    const peer = new SmtpPeer(server, mails);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return peer;
  }

  /** The mails received for `to`, waiting (bounded) until there are `count`. */
  async mailsTo(to: string, count = 1, timeoutMs = 5000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.mails.filter((m) => m.envelope.to.includes(to));
      if (found.length >= count || Date.now() > deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  get url(): string {
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
