import { createHash } from 'node:crypto';
import type { DomainEvent } from '@kith/platform';
import { beforeEach, describe, expect, it } from 'vitest';
import { BOT_TOKEN_EXPIRY, MAX_LISTED_SESSIONS, SessionsService } from './sessions.service.js';
import { sessionIdHash } from './tokens.js';
import type { ActiveSession, NewSession, RevokedSession, SessionRow, SessionsPort, SessionsTransaction } from './ports.js';

/** Records what the service asks of its store; answers what each test sets. */
class FakeSessionsStore implements Pick<SessionsPort, keyof SessionsPort> {
  inserted: NewSession[] = [];
  touched: { id: string; at: Date; expiresAt: Date; clientIp: string | null }[] = [];
  lookedUp: Buffer[] = [];
  revokeByHashesCalls: { userId: string; idHashes: string[] }[] = [];
  revokeCalls: string[] = [];
  revokeAllCalls: string[] = [];
  forgotten: { userId: string; tokens: { provider: string; token: string }[] }[] = [];
  active: ActiveSession | undefined;
  rows: SessionRow[] = [];
  listLimit: number | undefined;
  revokedByHashes: RevokedSession[] = [];
  revokeAnswer: RevokedSession | undefined = { id: 'sess-1', id_hash: 'hash-1' };
  /** Events of committed transactions only, as the outbox would hold them. */
  enqueued: DomainEvent[] = [];

  async insert(session: NewSession) {
    this.inserted.push(session);
  }
  async findActiveByTokenHash(tokenHash: Buffer) {
    this.lookedUp.push(tokenHash);
    return this.active;
  }
  async touch(id: string, at: Date, expiresAt: Date, clientIp: string | null) {
    this.touched.push({ id, at, expiresAt, clientIp });
  }
  async listActive(_userId: string, limit: number) {
    this.listLimit = limit;
    return this.rows;
  }
  async transaction<T>(work: (tx: SessionsTransaction) => Promise<T>): Promise<T> {
    const staged: DomainEvent[] = [];
    const stagedSessions: NewSession[] = [];
    const result = await work({
      revokeByHashes: async (userId, idHashes) => {
        this.revokeByHashesCalls.push({ userId, idHashes });
        return this.revokedByHashes;
      },
      revoke: async (sessionId) => {
        this.revokeCalls.push(sessionId);
        return this.revokeAnswer;
      },
      revokeAllOf: async (userId) => {
        this.revokeAllCalls.push(userId);
        return this.revokedByHashes;
      },
      insert: async (session) => void stagedSessions.push(session),
      forgetPushTokens: async (userId, tokens) => void this.forgotten.push({ userId, tokens }),
      enqueue: async (events) => void staged.push(...events),
    });
    this.enqueued.push(...staged);
    this.inserted.push(...stagedSessions);
    return result;
  }
}

const sessionChange = (userId: string, id: string, idHash: string) => ({
  name: 'AUTH_SESSION_CHANGE',
  audience: { users: [userId] },
  data: { auth_session_id_hash: idHash },
  internal: { revoked_session_ids: [id] },
});

const NOW = new Date('2025-03-01T12:00:00Z');
const DAY = 86_400_000;
const INTERVAL = 60_000;

let store: FakeSessionsStore;
let service: SessionsService;

beforeEach(() => {
  store = new FakeSessionsStore();
  // The fake has the store's public shape; the cast only drops the class's private handles.
  service = new SessionsService(store as unknown as SessionsPort, { idleDays: 90, touchIntervalMs: INTERVAL }, () => NOW);
});

const activeSession = (lastUsed: Date): ActiveSession => ({ id: 'sess-1', user_id: '42', last_used_at: lastUsed, flags: '0', bot: false });

describe('SessionsService.create', () => {
  it('when a session is created, then only the token hash is stored and the expiry is the idle period away', async () => {
    const { token, sessionId } = await service.create('42', {
      clientIp: '8.8.8.8',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0',
    });
    const row = store.inserted[0]!;
    expect(store.inserted).toHaveLength(1);
    expect(row.id).toBe(sessionId);
    expect(row.user_id).toBe('42');
    expect(row.token_hash.equals(createHash('sha256').update(token).digest())).toBe(true);
    expect(JSON.stringify(row)).not.toContain(token.split('.')[1]);
    expect(row.id_hash).toBe(createHash('sha256').update(sessionId).digest('base64'));
    expect(row.last_used_at).toEqual(NOW);
    expect(row.expires_at).toEqual(new Date(NOW.getTime() + 90 * DAY));
    expect(row).toMatchObject({ client_os: 'Linux', client_platform: 'Firefox', client_location: 'United States', client_ip: '8.8.8.8' });
  });

  it('when the client IP is unknown, then none is stored', async () => {
    await service.create('42', { clientIp: '' });
    expect(store.inserted[0]).toMatchObject({ client_ip: null, client_location: null });
  });
});

describe('SessionsService.validate', () => {
  it('when the token is empty or absurdly long, then the store is not asked', async () => {
    expect(await service.validate('', '1.2.3.4')).toBeUndefined();
    expect(await service.validate('x'.repeat(513), '1.2.3.4')).toBeUndefined();
    expect(store.lookedUp).toHaveLength(0);
  });

  it('when the token is unknown, then there is no session and nothing is touched', async () => {
    expect(await service.validate('unknown', '1.2.3.4')).toBeUndefined();
    expect(store.lookedUp[0]!.equals(createHash('sha256').update('unknown').digest())).toBe(true);
    expect(store.touched).toHaveLength(0);
  });

  it('when the session was used within the touch interval, then it is returned without a write', async () => {
    store.active = activeSession(new Date(NOW.getTime() - INTERVAL + 1));
    expect(await service.validate('tok', '1.2.3.4')).toEqual(store.active);
    expect(store.touched).toHaveLength(0);
  });

  it('when the touch interval has passed, then the last use and idle expiry move to now', async () => {
    store.active = activeSession(new Date(NOW.getTime() - INTERVAL));
    await service.validate('tok', '1.2.3.4');
    expect(store.touched).toEqual([{ id: 'sess-1', at: NOW, expiresAt: new Date(NOW.getTime() + 90 * DAY), clientIp: '1.2.3.4' }]);
  });

  it('when the caller gives no client IP, then the touch keeps the stored one', async () => {
    store.active = activeSession(new Date(NOW.getTime() - 10 * INTERVAL));
    await service.validate('tok', '');
    expect(store.touched[0]!.clientIp).toBeNull();
  });

  it('when the touch interval is zero, then every use is recorded', async () => {
    const eager = new SessionsService(store as unknown as SessionsPort, { idleDays: 90, touchIntervalMs: 0 }, () => NOW);
    store.active = activeSession(NOW);
    await eager.validate('tok', '');
    await eager.validate('tok', '');
    expect(store.touched).toHaveLength(2);
  });
});

describe('SessionsService.list', () => {
  it('when sessions are listed, then at most 50 are asked for and each shows its hash, ISO last use and client', async () => {
    store.rows = [
      {
        id: 'secret-id',
        id_hash: 'hash-1',
        user_id: '42',
        token_hash: Buffer.alloc(32),
        created_at: NOW,
        last_used_at: NOW,
        expires_at: NOW,
        client_os: 'Linux',
        client_platform: 'Firefox',
        client_location: 'United States',
        client_ip: '8.8.8.8',
        revoked_at: null,
      },
    ];
    const listed = await service.list('42');
    expect(store.listLimit).toBe(MAX_LISTED_SESSIONS);
    expect(MAX_LISTED_SESSIONS).toBe(50);
    expect(listed).toEqual([
      {
        id_hash: 'hash-1',
        approx_last_used_time: '2025-03-01T12:00:00.000Z',
        client_info: { os: 'Linux', platform: 'Firefox', location: 'United States' },
      },
    ]);
  });
});

describe('SessionsService.logoutByHashes', () => {
  it('when hashes repeat, then each is sent to the store once', async () => {
    await service.logoutByHashes('42', ['a', 'b', 'a', 'a', 'b']);
    expect(store.revokeByHashesCalls).toEqual([{ userId: '42', idHashes: ['a', 'b'] }]);
  });

  it('when nothing was revoked, then no event is written', async () => {
    store.revokedByHashes = [];
    expect(await service.logoutByHashes('42', ['someone-elses-hash'])).toEqual([]);
    expect(store.enqueued).toEqual([]);
  });

  it('when sessions were revoked, then one AUTH_SESSION_CHANGE per session commits with them', async () => {
    store.revokedByHashes = [
      { id: 's1', id_hash: 'h1' },
      { id: 's2', id_hash: 'h2' },
    ];
    expect(await service.logoutByHashes('42', ['h1', 'h2'])).toEqual(['s1', 's2']);
    expect(store.enqueued).toEqual([sessionChange('42', 's1', 'h1'), sessionChange('42', 's2', 'h2')]);
  });

  it('when one revoked session goes on as a new one, then its AUTH_SESSION_CHANGE names the new session and its hash', async () => {
    store.revokedByHashes = [
      { id: 's1', id_hash: 'h1' },
      { id: 's2', id_hash: 'h2' },
    ];
    await service.logoutByHashes('42', ['h1', 'h2'], { from: 's2', to: 'new' });
    expect(store.enqueued).toEqual([
      sessionChange('42', 's1', 'h1'),
      {
        ...sessionChange('42', 's2', sessionIdHash('new')),
        internal: { revoked_session_ids: ['s2'], moved_to_session: { id: 'new', id_hash: sessionIdHash('new') } },
      },
    ]);
  });
});

describe('SessionsService.logout', () => {
  it('when the session is revoked, then its AUTH_SESSION_CHANGE names its hash to clients and its id internally', async () => {
    expect(await service.logout('42', 'sess-1')).toEqual(['sess-1']);
    expect(store.revokeCalls).toEqual(['sess-1']);
    expect(store.enqueued).toEqual([sessionChange('42', 'sess-1', 'hash-1')]);
  });

  it('when the logout names push tokens, then they are unregistered in the same transaction as the revocation', async () => {
    const tokens = [
      { provider: 'gcm', token: 'device-token' },
      { provider: 'apns_voip', token: 'voip-token' },
    ];
    expect(await service.logout('42', 'sess-1', tokens)).toEqual(['sess-1']);
    expect(store.forgotten).toEqual([{ userId: '42', tokens }]);
  });

  it('when the session was already revoked, then no event is written', async () => {
    store.revokeAnswer = undefined;
    expect(await service.logout('42', 'sess-1')).toEqual([]);
    expect(store.enqueued).toEqual([]);
  });
});

describe('SessionsService.replaceBotToken', () => {
  it('when a bot token is reset, then every earlier token is revoked with its event, and only the new one’s digest is stored, never expiring', async () => {
    store.revokedByHashes = [{ id: 'old-1', id_hash: 'old-hash-1' }];
    const token = await service.replaceBotToken('77');
    expect(store.revokeAllCalls).toEqual(['77']);
    expect(store.enqueued).toEqual([sessionChange('77', 'old-1', 'old-hash-1')]);
    const [inserted] = store.inserted;
    expect(inserted).toMatchObject({ user_id: '77', expires_at: BOT_TOKEN_EXPIRY, client_ip: null, revoked_at: null });
    expect(inserted!.token_hash).toEqual(createHash('sha256').update(token).digest());
    // 256 random bits after the id part.
    expect(Buffer.from(token.split('.')[1]!, 'base64url')).toHaveLength(32);
  });

  it('when a bot’s token is used, then its expiry is never slid (no touch), unlike a person’s', async () => {
    store.active = { ...activeSession(new Date(NOW.getTime() - 10 * DAY)), bot: true };
    expect(await service.validate('x.y', '127.0.0.1')).toMatchObject({ bot: true });
    expect(store.touched).toEqual([]);
  });
});
