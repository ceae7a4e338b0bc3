import type { Redis } from '@kith/platform';
import type { MembershipChange } from '../domain/membership.js';
import type { ClaimRequest, ClaimResult, NewSession, SessionStorePort } from '../domain/ports.js';

/*
 * A session is three keys: a hash (user, auth session, owner connection, last sequence number
 * sent, stream position), a list of the last frames sent, oldest first, whose last one has the
 * hash's `seq`, and the set of the user's guild ids at the hash's stream position (a frame that
 * changes them is recorded with the change, in one script, so a resume anywhere sees both or
 * neither). Every write that depends on who owns the session is one Lua script, so a
 * connection that lost its session to a resume elsewhere can never write into it again.
 */

const APPEND = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'seq', ARGV[2])
if tonumber(redis.call('HGET', KEYS[1], 'sseq')) < tonumber(ARGV[3]) then redis.call('HSET', KEYS[1], 'sseq', ARGV[3]) end
redis.call('RPUSH', KEYS[2], ARGV[4])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[5]), -1)
if ARGV[7] == 'add' then redis.call('SADD', KEYS[3], ARGV[8]) elseif ARGV[7] == 'remove' then redis.call('SREM', KEYS[3], ARGV[8]) end
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('PEXPIRE', KEYS[3], ARGV[6])
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
local s = redis.call('HMGET', KEYS[1], 'user', 'seq', 'sseq')
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
return {'ok', s[2], s[3], redis.call('LRANGE', KEYS[2], n - (seq - c), -1), redis.call('SMEMBERS', KEYS[3])}`;

interface SessionCommands {
  sessionAppend(
    hash: string,
    frames: string,
    guilds: string,
    owner: string,
    seq: number,
    streamSeq: number,
    frame: string,
    cap: number,
    ttlMs: number,
    guildOp: string,
    guildId: string,
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
  ): Promise<[string, string?, string?, string[]?, string[]?]>;
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
    };
    const multi = this.redis.multi().del(frames, guilds).hset(hash, fields).rpush(frames, firstFrame);
    if (session.guildIds.length > 0) multi.sadd(guilds, ...session.guildIds);
    await multi.pexpire(hash, this.options.ttlMs).pexpire(frames, this.options.ttlMs).pexpire(guilds, this.options.ttlMs).exec();
  }

  async append(
    sessionId: string,
    owner: string,
    seq: number,
    streamSeq: number,
    frame: string,
    membership?: MembershipChange,
  ): Promise<boolean> {
    const { maxFrames, ttlMs } = this.options;
    const written = await this.commands.sessionAppend(
      ...keys(sessionId),
      owner,
      seq,
      streamSeq,
      frame,
      maxFrames,
      ttlMs,
      membership?.op ?? '',
      membership?.guildId ?? '',
    );
    return written === 1;
  }

  async touch(sessionId: string, owner: string, streamSeq: number): Promise<boolean> {
    return (await this.commands.sessionTouch(...keys(sessionId), owner, streamSeq, this.options.ttlMs)) === 1;
  }

  async claim(sessionId: string, request: ClaimRequest): Promise<ClaimResult> {
    const [status, seq, streamSeq, sent, guildIds] = await this.commands.sessionClaim(
      ...keys(sessionId),
      request.userId,
      request.clientSeq,
      request.owner,
      request.authSessionId,
      request.authSessionIdHash,
      this.options.ttlMs,
    );
    if (status !== 'ok') return { status: status as 'missing' | 'user' | 'seq' };
    return { status: 'ok', seq: Number(seq), streamSeq: Number(streamSeq), frames: sent ?? [], guildIds: guildIds ?? [] };
  }

  async end(sessionId: string): Promise<void> {
    await this.redis.del(...keys(sessionId));
  }
}

/** The keys share a hash tag, so a Redis Cluster keeps them on one node for the scripts. */
const keys = (sessionId: string): [string, string, string] => [
  `session:{${sessionId}}`,
  `session:{${sessionId}}:frames`,
  `session:{${sessionId}}:guilds`,
];
