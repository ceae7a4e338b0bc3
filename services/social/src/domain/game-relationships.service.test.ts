import { describe, expect, it } from 'vitest';
import { ApiError } from '@kith/platform';
import { GameRelationshipsService, type GameRelationshipRow, type GameStore, type GameTx } from './game-relationships.service.js';
import type { UserDirectory } from './ports.js';
import type { PartialUser } from './relationship.types.js';
import { contractUser as partialUser } from '@kith/platform/testing';

const A = '100000000000000001';
const B = '100000000000000002';
const APP = '200000000000000001';

class MemoryGameStore implements GameStore {
  rows = new Map<string, GameRelationshipRow>();
  events: { name: string; userId: string; data: unknown }[] = [];
  authorizations = new Set<string>();

  async list(userId: string) {
    return [...this.rows.values()].filter((r) => r.user_id === userId);
  }
  async commonApplications(a: string, b: string) {
    return [APP].filter((app) => this.authorizations.has(`${a}:${app}`) && this.authorizations.has(`${b}:${app}`));
  }
  /** `blocker:blocked` pairs of the social graph. */
  blocks = new Set<string>();
  async recordAuthorization(userId: string, applicationId: string) {
    this.authorizations.add(`${userId}:${applicationId}`);
  }
  async withUsersLocked<R>(_ids: string[], fn: (tx: GameTx) => Promise<R>): Promise<R> {
    const key = (u: string, t: string, app: string) => `${u}:${t}:${app}`;
    return fn({
      blocked: async (a, b) => this.blocks.has(`${a}:${b}`) || this.blocks.has(`${b}:${a}`),
      get: async (u, t, app) => this.rows.get(key(u, t, app)),
      put: async (row) => void this.rows.set(key(row.user_id, row.target_id, row.application_id), { ...row }),
      delete: async (u, t, app) => {
        const gone = [...this.rows.values()].filter((r) => r.user_id === u && r.target_id === t && (!app || r.application_id === app));
        for (const r of gone) this.rows.delete(key(r.user_id, r.target_id, r.application_id));
        return gone;
      },
      emit: async (name, userId, data) => void this.events.push({ name, userId, data }),
    });
  }
}

function setup() {
  const store = new MemoryGameStore();
  const user = (id: string): PartialUser => partialUser(id, `user${id.slice(-1)}`);
  const users: UserDirectory = {
    getUsers: async (ids) => new Map(ids.filter((id) => id === A || id === B).map((id) => [id, user(id)])),
    findByUsername: async () => undefined,
    friendSourceFlags: async () => ({ all: true, mutual_friends: true, mutual_guilds: true }),
  };
  const since = new Date('2025-01-22T00:26:18.616Z');
  return { store, service: new GameRelationshipsService(store, users, () => since), since };
}

async function code(promise: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    if (err instanceof ApiError) return err.body.code;
    throw err;
  }
}

describe('game relationships', () => {
  it('when accepting with no incoming request (none, or only one’s own outgoing), then 80005 and nothing is written', async () => {
    const { store, service } = setup();
    await service.recordAuthorization(A, APP);
    await service.recordAuthorization(B, APP);
    expect(await code(service.requestOrAccept(A, B, APP, true))).toBe(80005);
    expect(store.rows.size).toBe(0);
    await service.requestOrAccept(A, B, APP, false);
    store.events = [];
    expect(await code(service.requestOrAccept(A, B, APP, true))).toBe(80005);
    expect(store.events).toEqual([]);
  });

  it('when a game relationship is removed, then each side gets the documented remove payload', async () => {
    const { store, service, since } = setup();
    await service.recordAuthorization(A, APP);
    await service.recordAuthorization(B, APP);
    await service.requestOrAccept(A, B, APP, false);
    await service.requestOrAccept(B, A, APP, true);
    store.events = [];
    await service.remove(A, B, APP);
    const payload = { application_id: APP, type: 1, since: since.toISOString(), dm_access_type: 0 };
    expect(store.events).toEqual([
      { name: 'GAME_RELATIONSHIP_REMOVE', userId: A, data: { id: B, user_id: A, ...payload } },
      { name: 'GAME_RELATIONSHIP_REMOVE', userId: B, data: { id: A, user_id: B, ...payload } },
    ]);
  });

  it('when either user blocks the other, then a game request is refused with 80001 and nothing is written', async () => {
    const { store, service } = setup();
    await service.recordAuthorization(A, APP);
    await service.recordAuthorization(B, APP);
    store.blocks.add(`${B}:${A}`);
    expect(await code(service.requestOrAccept(A, B, APP, false))).toBe(80001);
    expect(store.rows.size).toBe(0);
  });

  it('when the users share no authorized application, then 80009', async () => {
    const { service } = setup();
    await service.recordAuthorization(A, APP);
    expect(await code(service.requestOrAccept(A, B, undefined, false))).toBe(80009);
  });
});
