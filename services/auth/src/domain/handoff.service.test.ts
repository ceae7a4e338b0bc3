import { ApiError } from '@kith/platform';
import { describe, expect, it } from 'vitest';
import { HandoffService } from './handoff.service.js';
import { MemoryTickets } from '../../test/fakes/tickets.fake.js';
import type { UserRow } from './ports.js';

const user = {
  id: '42',
  username: 'alice',
  discriminator: '0',
  global_name: null,
  avatar: null,
  public_flags: 0n,
  bot: false,
  disabled_at: null,
  deleted_at: null,
} as unknown as UserRow;

function setup(found: UserRow | undefined) {
  const created: string[] = [];
  const service = new HandoffService(
    new MemoryTickets(),
    { findById: () => Promise.resolve(found) },
    {
      create: (userId) => {
        created.push(userId);
        return Promise.resolve({ token: `session-of-${userId}` });
      },
    },
  );
  return { service, created };
}

const refused = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).body.errors).toHaveProperty('handoff_token');
};

describe('HandoffService', () => {
  it('when exchanged with its key from its address, then a new session and the partial user', async () => {
    const { service, created } = setup(user);
    const token = await service.create('42', 'k', '1.2.3.4');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const result = await service.exchange('k', token, { clientIp: '1.2.3.4' });
    expect(result).toMatchObject({ token: 'session-of-42', user: { id: '42', username: 'alice' } });
    expect(created).toEqual(['42']);
  });

  it('when exchanged twice, with another key, or from another or unknown address, then refused', async () => {
    const { service } = setup(user);
    const token = await service.create('42', 'k', '1.2.3.4');
    await service.exchange('k', token, { clientIp: '1.2.3.4' });
    await refused(service.exchange('k', token, { clientIp: '1.2.3.4' }));
    await refused(service.exchange('other', await service.create('42', 'k', '1.2.3.4'), { clientIp: '1.2.3.4' }));
    await refused(service.exchange('k', await service.create('42', 'k', '1.2.3.4'), { clientIp: '5.6.7.8' }));
    await refused(service.exchange('k', await service.create('42', 'k', ''), { clientIp: '' }));
  });

  it('when the user is gone, then refused and no session is created', async () => {
    const { service, created } = setup(undefined);
    await refused(service.exchange('k', await service.create('42', 'k', '1.2.3.4'), { clientIp: '1.2.3.4' }));
    expect(created).toEqual([]);
  });
});
