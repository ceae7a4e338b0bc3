import type { Redis } from '@kith/platform';
import type { ClaimRequest, ClaimResult, NewSession, SessionStorePort } from '../domain/ports.js';

/*
 * A session is two keys: a hash (user, auth session, owner connection, last sequence number sent,
 * stream position) and a list of the last frames sent, oldest first, whose last one has the
 * hash's `seq`. Every write that depends on who owns the session is one Lua script, so a
 * connection that lost its session to a resume elsewhere can never write into it again.
 */

const APPEND = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'seq', ARGV[2])
if tonumber(redis.call('HGET', KEYS[1], 'sseq')) < tonumber(ARGV[3]) then redis.call('HSET', KEYS[1], 'sseq', ARGV[3]) end
redis.call('RPUSH', KEYS[2], ARGV[4])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[5]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return 1`;

const TOUCH = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'sseq')) < tonumber(ARGV[2]) then redis.call('HSET', KEYS[1], 'sseq', ARGV[2]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
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
return {'ok', s[2], s[3], redis.call('LRANGE', KEYS[2], n - (seq - c), -1)}`;

interface SessionCommands {
  sessionAppend(
    hash: string,
    frames: string,
    owner: string,
    seq: number,
    streamSeq: number,
    frame: string,
    cap: number,
    ttlMs: number,
  ): Promise<number>;
  sessionTouch(hash: string, frames: string, owner: string, streamSeq: number, ttlMs: number): Promise<number>;
  sessionClaim(
    hash: string,
    frames: string,
    userId: string,
    clientSeq: number,
    owner: string,
    authSessionId: string,
    authSessionIdHash: string,
    ttlMs: number,
  ): Promise<[string, string?, string?, string[]?]>;
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
    redis.defineCommand('sessionAppend', { numberOfKeys: 2, lua: APPEND });
    redis.defineCommand('sessionTouch', { numberOfKeys: 2, lua: TOUCH });
    redis.defineCommand('sessionClaim', { numberOfKeys: 2, lua: CLAIM });
    this.commands = redis as unknown as SessionCommands;
  }

  async create(sessionId: string, session: NewSession, firstFrame: string): Promise<void> {
    const [hash, frames] = keys(sessionId);
    const fields = {
      user: session.userId,
      auth: session.authSessionId,
      hash: session.authSessionIdHash,
      owner: session.owner,
      seq: 1,
      sseq: session.streamSeq,
    };
    await this.redis
      .multi()
      .del(frames)
      .hset(hash, fields)
      .rpush(frames, firstFrame)
      .pexpire(hash, this.options.ttlMs)
      .pexpire(frames, this.options.ttlMs)
      .exec();
  }

  async append(sessionId: string, owner: string, seq: number, streamSeq: number, frame: string): Promise<boolean> {
    const [hash, frames] = keys(sessionId);
    return (
      (await this.commands.sessionAppend(hash, frames, owner, seq, streamSeq, frame, this.options.maxFrames, this.options.ttlMs)) === 1
    );
  }

  async touch(sessionId: string, owner: string, streamSeq: number): Promise<boolean> {
    const [hash, frames] = keys(sessionId);
    return (await this.commands.sessionTouch(hash, frames, owner, streamSeq, this.options.ttlMs)) === 1;
  }

  async claim(sessionId: string, request: ClaimRequest): Promise<ClaimResult> {
    const [hash, frames] = keys(sessionId);
    const [status, seq, streamSeq, sent] = await this.commands.sessionClaim(
      hash,
      frames,
      request.userId,
      request.clientSeq,
      request.owner,
      request.authSessionId,
      request.authSessionIdHash,
      this.options.ttlMs,
    );
    if (status !== 'ok') return { status: status as 'missing' | 'user' | 'seq' };
    return { status: 'ok', seq: Number(seq), streamSeq: Number(streamSeq), frames: sent ?? [] };
  }

  async end(sessionId: string): Promise<void> {
    await this.redis.del(...keys(sessionId));
  }
}

/** Both keys share a hash tag, so a Redis Cluster keeps them on one node for the scripts. */
const keys = (sessionId: string): [string, string] => [`session:{${sessionId}}`, `session:{${sessionId}}:frames`];
