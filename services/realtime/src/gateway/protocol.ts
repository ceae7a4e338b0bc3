import { z } from 'zod';

/** Gateway opcodes (the platform's numbering). */
export const Op = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  PresenceUpdate: 3,
  VoiceStateUpdate: 4,
  Resume: 6,
  Reconnect: 7,
  RequestGuildMembers: 8,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
} as const;

/** Close codes the gateway ends a connection with. */
export const Close = {
  UnknownError: 4000,
  UnknownOpcode: 4001,
  DecodeError: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005,
  RateLimited: 4008,
  SessionTimedOut: 4009,
  /** Not a gateway code: the session was resumed on another connection, so this one starts afresh. */
  Superseded: 1000,
} as const;

export const CLOSE_REASONS: Record<number, string> = {
  [Close.UnknownError]: 'Unknown error.',
  [Close.UnknownOpcode]: 'Unknown opcode.',
  [Close.DecodeError]: 'Error while decoding payload.',
  [Close.NotAuthenticated]: 'Not authenticated.',
  [Close.AuthenticationFailed]: 'Authentication failed.',
  [Close.AlreadyAuthenticated]: 'Already authenticated.',
  [Close.RateLimited]: 'You are being rate limited.',
  [Close.SessionTimedOut]: 'Session timed out.',
  [Close.Superseded]: 'Session resumed elsewhere.',
};

/**
 * Every opcode the platform defines for clients to send. Heartbeat (and QoS Heartbeat), Identify
 * and Resume are answered; the others are accepted once identified, and those Kith has nothing
 * for (voice, streams, subscriptions, lazy guild requests…) are then ignored. Any other opcode
 * closes the connection with 4001.
 */
const CLIENT_OPS = new Set<number>([
  1, 2, 3, 4, 5, 6, 8, 13, 14, 17, 18, 19, 20, 21, 22, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
]);
export const isKnownOp = (op: number): boolean => CLIENT_OPS.has(op);

/** Op 40 QoS Heartbeat keeps the connection alive as op 1 does. */
export const QOS_HEARTBEAT = 40;

/** A client closing with these ends its session: nothing is kept to resume. */
export const SESSION_ENDING_CLOSES: ReadonlySet<number> = new Set([1000, 1001]);

const frame = z.object({ op: z.number().int(), d: z.unknown().optional() });

/** Op 3: the user's status and activities, as clients send them. */
export const presenceData = z.looseObject({
  status: z.enum(['online', 'idle', 'dnd', 'invisible', 'offline']),
  since: z.number().int().nonnegative().nullable().optional(),
  activities: z.array(z.looseObject({ name: z.string().max(128), type: z.number().int().min(0).max(6) })).max(32),
  afk: z.boolean().optional(),
});
export type PresenceData = z.output<typeof presenceData>;

/**
 * Identify's initial presence: op 3's, where the status may also be `unknown` (the gateway
 * assigns it: the user's current presence, or online), as a left-out one is, and activities may
 * be left out.
 */
export const identifyPresence = presenceData.extend({
  status: z.enum(['online', 'idle', 'dnd', 'invisible', 'offline', 'unknown']).default('unknown'),
  activities: presenceData.shape.activities.default([]),
});

export const identifyData = z.looseObject({
  token: z.string().min(1),
  properties: z.record(z.string(), z.unknown()),
  intents: z.number().int().nonnegative().optional(),
  compress: z.boolean().optional(),
  shard: z.tuple([z.number().int().nonnegative(), z.number().int().positive()]).optional(),
  presence: identifyPresence.optional(),
});
export type IdentifyData = z.output<typeof identifyData>;

export const resumeData = z.looseObject({
  token: z.string().min(1),
  session_id: z.string().min(1).max(64),
  seq: z.number().int().nonnegative().nullable().optional(),
});
export type ResumeData = z.output<typeof resumeData>;

export type ClientFrame = z.output<typeof frame>;

/** A client frame (text or binary, UTF-8 JSON) → its op and data, or undefined when it does not decode. */
export function decodeFrame(raw: Buffer | ArrayBuffer | Buffer[]): ClientFrame | undefined {
  const bytes = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw as ArrayBuffer);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = frame.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The token an Identify or Resume carries, and the form it came in. On the gateway both users and
 * bots identify with the bare token; a bot's may also come as its REST form `Bot <token>`. The
 * scheme is matched without regard to case, as the edge matches it.
 */
export function presentedToken(token: string): { form: 'bare' | 'bot' | 'bearer'; token: string } {
  const match = /^(bot|bearer)[ \t]+(.*)$/is.exec(token);
  if (!match) return { form: 'bare', token: token.trim() };
  return { form: match[1]!.toLowerCase() === 'bot' ? 'bot' : 'bearer', token: match[2]!.trim() };
}

/**
 * Whether the token's owner may present it in this form, as the edge decides for REST: a user's
 * token under `Bot ` is refused, and no OAuth2 access token (`Bearer `) exists to connect with.
 */
export function formAccepted(form: 'bare' | 'bot' | 'bearer', owner: { bot: boolean }): boolean {
  if (form === 'bot') return owner.bot;
  return form === 'bare';
}

/** A server frame as sent: op 0 carries a name and a sequence number, the others neither. */
export const dispatchFrame = (t: string, s: number | null, d: unknown): string => JSON.stringify({ op: Op.Dispatch, t, s, d });

/**
 * One event's dispatch frames, its name and data serialized once: each connection's frame differs
 * only in its sequence number, spliced in. The same text `dispatchFrame` makes.
 */
export class DispatchFrames {
  private readonly head: string;
  private readonly tail: string;

  constructor(t: string, d: unknown) {
    this.head = `{"op":${Op.Dispatch},"t":${JSON.stringify(t)},"s":`;
    this.tail = `,"d":${JSON.stringify(d) ?? 'null'}}`;
  }

  frame(s: number): string {
    return this.head + s + this.tail;
  }
}
export const opFrame = (op: number, d: unknown): string => JSON.stringify({ op, d, s: null, t: null });
