import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ActiveSession, NewSession, SessionRow, SessionsStore } from '../store/sessions.store.js';
import { MAX_LISTED_SESSIONS, SessionsService, type SessionEvents } from './sessions.service.js';

/** Records what the service asks of its store; answers what each test sets. */
class FakeSessionsStore implements Pick<SessionsStore, keyof SessionsStore> {
  inserted: NewSession[] = [];
  touched: { id: string; at: Date; expiresAt: Date; clientIp: string | null }[] = [];
  lookedUp: Buffer[] = [];
  revokeByHashesCalls: { userId: string; idHashes: string[] }[] = [];
  revokeCalls: string[] = [];
  active: ActiveSession | undefined;
  rows: SessionRow[] = [];
  listLimit: number | undefined;
  revokedByHashes: string[] = [];
  revokeAnswer = true;

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
  async revokeByHashes(userId: string, idHashes: string[]) {
    this.revokeByHashesCalls.push({ userId, idHashes });
    return this.revokedByHashes;
  }
  async revoke(sessionId: string) {
    this.revokeCalls.push(sessionId);
    return this.revokeAnswer;
  }
}

class FakeEvents implements SessionEvents {
  published: { userId: string; sessionIds: string[] }[] = [];
  async revoked(userId: string, sessionIds: string[]) {
    this.published.push({ userId, sessionIds });
  }
}

const NOW = new Date('2025-03-01T12:00:00Z');
const DAY = 86_400_000;
const INTERVAL = 60_000;

let store: FakeSessionsStore;
let events: FakeEvents;
let service: SessionsService;

beforeEach(() => {
  store = new FakeSessionsStore();
  events = new FakeEvents();
  // The fake has the store's public shape; the cast only drops the class's private db handle.
  service = new SessionsService(store as unknown as SessionsStore, events, { idleDays: 90, touchIntervalMs: INTERVAL }, () => NOW);
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
    const eager = new SessionsService(store as unknown as SessionsStore, events, { idleDays: 90, touchIntervalMs: 0 }, () => NOW);
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

  it('when nothing was revoked, then no event is published', async () => {
    store.revokedByHashes = [];
    await service.logoutByHashes('42', ['someone-elses-hash']);
    expect(events.published).toEqual([]);
  });

  it('when sessions were revoked, then one event names them all', async () => {
    store.revokedByHashes = ['s1', 's2'];
    await service.logoutByHashes('42', ['h1', 'h2']);
    expect(events.published).toEqual([{ userId: '42', sessionIds: ['s1', 's2'] }]);
  });
});

describe('SessionsService.logout', () => {
  it('when the session is revoked, then the event names it', async () => {
    await service.logout('42', 'sess-1');
    expect(store.revokeCalls).toEqual(['sess-1']);
    expect(events.published).toEqual([{ userId: '42', sessionIds: ['sess-1'] }]);
  });

  it('when the session was already revoked, then no event is published', async () => {
    store.revokeAnswer = false;
    await service.logout('42', 'sess-1');
    expect(events.published).toEqual([]);
  });
});
