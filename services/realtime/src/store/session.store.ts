import type { Redis } from '@kith/platform';
import type { ClaimRequest, ClaimResult, NewSession, SessionAppend, SessionStorePort } from '../domain/ports.js';

/*
 * A session is three keys: a hash (user, auth session, owner connection, last sequence number
 * sent, stream position), a list of the last frames sent, oldest first, whose last one has the
 * hash's `seq`, and the set of the user's guild ids at the hash's stream position (a frame that
 * changes them is recorded with the change, in one script, so a resume anywhere sees both or
 * neither). Every write that depends on who owns the session is one Lua script, so a
 * connection that lost its session to a resume elsewhere can never write into it again.
 */

// ARGV: owner, cap, ttl, then per frame seq, stream seq, frame, guild op, guild id (in order).
// A frame whose seq the session already has was recorded by an attempt whose reply was lost:
// it is not recorded twice.
const APPEND = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
local s = redis.call('HMGET', KEYS[1], 'seq', 'sseq')
local seq = tonumber(s[1])
local sseq = tonumber(s[2])
for i = 4, #ARGV, 5 do
  local frameSeq = tonumber(ARGV[i])
  if frameSeq > seq then
    seq = frameSeq
    sseq = math.max(sseq, tonumber(ARGV[i + 1]))
    redis.call('RPUSH', KEYS[2], ARGV[i + 2])
    if ARGV[i + 3] == 'add' then redis.call('SADD', KEYS[3], ARGV[i + 4]) elseif ARGV[i + 3] == 'remove' then redis.call('SREM', KEYS[3], ARGV[i + 4]) end
  end
end
redis.call('HSET', KEYS[1], 'seq', seq, 'sseq', sseq)
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1`;

const TOUCH = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'sseq')) < tonumber(ARGV[2]) then redis.call('HSET', KEYS[1], 'sseq', ARGV[2]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1`;

// The list holds frames seq-n+1 … seq; a client that saw `c` gets the last seq-c of them.
const CLAIM = `
local s = redis.call('HMGET', KEYS[1], 'user', 'seq', 'sseq', 'intents')
if not s[1] then return {'missing'} end
if s[1] ~= ARGV[1] then return {'user'} end
local seq = tonumber(s[2])
local c = tonumber(ARGV[2])
local n = redis.call('LLEN', KEYS[2])
if c > seq or c < seq - n then return {'seq'} end
redis.call('HSET', KEYS[1], 'owner', ARGV[3], 'auth', ARGV[4], 'hash', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('PEXPIRE', KEYS[3], ARGV[6])
return {'ok', s[2], s[3], redis.call('LRANGE', KEYS[2], n - (seq - c), -1), redis.call('SMEMBERS', KEYS[3]), s[4] or '0'}`;

const END = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])`;

interface SessionCommands {
  sessionEnd(hash: string, frames: string, guilds: string, owner: string): Promise<number>;
  sessionAppend(
    hash: string,
    frames: string,
    guilds: string,
    owner: string,
    cap: number,
    ttlMs: number,
    ...frameArgs: (string | number)[]
  ): Promise<number>;
  sessionTouch(hash: string, frames: string, guilds: string, owner: string, streamSeq: number, ttlMs: number): Promise<number>;
  sessionClaim(
    hash: string,
    frames: string,
    guilds: string,
    userId: string,
    clientSeq: number,
    owner: string,
    authSessionId: string,
    authSessionIdHash: string,
    ttlMs: number,
  ): Promise<[string, string?, string?, string[]?, string[]?, string?]>;
}

export interface SessionStoreOptions {
  /** The resume window: a session nobody touches for this long is gone. */
  ttlMs: number;
  /** How many of the latest frames are kept. */
  maxFrames: number;
}

/** Gateway sessions in Redis (under the service's own key prefix). */
export class SessionStore implements SessionStorePort {
  private readonly commands: SessionCommands;

  constructor(
    private readonly redis: Redis,
    private readonly options: SessionStoreOptions,
  ) {
    redis.defineCommand('sessionAppend', { numberOfKeys: 3, lua: APPEND });
    redis.defineCommand('sessionTouch', { numberOfKeys: 3, lua: TOUCH });
    redis.defineCommand('sessionClaim', { numberOfKeys: 3, lua: CLAIM });
    redis.defineCommand('sessionEnd', { numberOfKeys: 3, lua: END });
    this.commands = redis as unknown as SessionCommands;
  }

  async create(sessionId: string, session: NewSession, firstFrame: string): Promise<void> {
    const [hash, frames, guilds] = keys(sessionId);
    const fields = {
      user: session.userId,
      auth: session.authSessionId,
      hash: session.authSessionIdHash,
      owner: session.owner,
      seq: 1,
      sseq: session.streamSeq,
      intents: session.intents ?? 0,
    };
    const multi = this.redis.multi().del(frames, guilds).hset(hash, fields).rpush(frames, firstFrame);
    if (session.guildIds.length > 0) multi.sadd(guilds, ...session.guildIds);
    await multi.pexpire(hash, this.options.ttlMs).pexpire(frames, this.options.ttlMs).pexpire(guilds, this.options.ttlMs).exec();
  }

  async append(writes: SessionAppend[]): Promise<(boolean | Error)[]> {
    const { maxFrames, ttlMs } = this.options;
    // Built by pushing: one array per session, not one per frame spread into another (a fanout
    // writes hundreds of sessions per event).
    const args = (w: SessionAppend): [string, string, string, string, number, number, ...(string | number)[]] => {
      const [hash, frames, guilds] = keys(w.sessionId);
      const out: [string, string, string, string, number, number, ...(string | number)[]] = [
        hash,
        frames,
        guilds,
        w.owner,
        maxFrames,
        ttlMs,
      ];
      for (const f of w.frames) out.push(f.seq, f.streamSeq, f.frame, f.membership?.op ?? '', f.membership?.guildId ?? '');
      return out;
    };
    if (writes.length === 1) {
      // One session (the common case at low rates): a plain call, without a pipeline's bookkeeping.
      return [await this.commands.sessionAppend(...args(writes[0]!)).then((written) => written === 1, toError)];
    }
    const pipeline = this.redis.pipeline() as unknown as SessionCommands & { exec(): Promise<[Error | null, unknown][] | null> };
    for (const w of writes) void pipeline.sessionAppend(...args(w));
    const replies = await pipeline.exec().catch((err: unknown) => writes.map(() => [toError(err), null] as [Error, null]));
    return writes.map((_, i) => {
      const [err, written] = replies?.[i] ?? [new Error('no reply from the session store'), null];
      return err ?? written === 1;
    });
  }

  async touch(sessionId: string, owner: string, streamSeq: number): Promise<boolean> {
    return (await this.commands.sessionTouch(...keys(sessionId), owner, streamSeq, this.options.ttlMs)) === 1;
  }

  async claim(sessionId: string, request: ClaimRequest): Promise<ClaimResult> {
    const [status, seq, streamSeq, sent, guildIds, intents] = await this.commands.sessionClaim(
      ...keys(sessionId),
      request.userId,
      request.clientSeq,
      request.owner,
      request.authSessionId,
      request.authSessionIdHash,
      this.options.ttlMs,
    );
    if (status !== 'ok') return { status: status as 'missing' | 'user' | 'seq' };
    return {
      status: 'ok',
      seq: Number(seq),
      streamSeq: Number(streamSeq),
      frames: sent ?? [],
      guildIds: guildIds ?? [],
      intents: Number(intents ?? 0),
    };
  }

  async end(sessionId: string, owner?: string): Promise<void> {
    if (owner === undefined) await this.redis.del(...keys(sessionId));
    else await this.commands.sessionEnd(...keys(sessionId), owner);
  }
}

/** The keys share a hash tag, so a Redis Cluster keeps them on one node for the scripts. */
const keys = (sessionId: string): [string, string, string] => [
  `session:{${sessionId}}`,
  `session:{${sessionId}}:frames`,
  `session:{${sessionId}}:guilds`,
];

const toError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
