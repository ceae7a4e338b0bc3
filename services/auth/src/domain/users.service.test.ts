import { describe, expect, it } from 'vitest';
import { MemoryUsers, userRow } from '../../test/fakes/users.fake.js';
import { UserDirectory, isStorableId } from './users.service.js';

const alice = userRow({ id: '100', username: 'alice', discriminator: '0' });
const gone = userRow({ id: '101', username: 'gone', deleted_at: new Date() });
const legacy = userRow({ id: '102', username: 'legacy', discriminator: '1234' });

describe('UserDirectory', () => {
  it('when ids repeat, overflow a signed 64-bit integer or are not numbers, then only storable ones are looked up, once', async () => {
    const users = new MemoryUsers(alice);
    const asked: string[][] = [];
    const directory = new UserDirectory({
      findById: (id) => users.findById(id),
      findByUsername: (name) => users.findByUsername(name),
      findManyByIds: (ids) => {
        asked.push(ids);
        return users.findManyByIds(ids);
      },
      unknownIds: (ids) => users.unknownIds(ids),
    });
    const found = await directory.publicUsers(['100', '100', '9223372036854775808', 'abc', '']);
    expect(found.map((u) => u.id)).toEqual(['100']);
    expect(asked).toEqual([['100']]);
  });

  it('when the account is deleted, unknown or the id unstorable, then current answers 10013', async () => {
    const directory = new UserDirectory(new MemoryUsers(alice, gone));
    await expect(directory.current('100')).resolves.toMatchObject({ id: '100' });
    for (const id of ['101', '999', '18446744073709551615'])
      await expect(directory.current(id)).rejects.toMatchObject({ status: 404, body: { code: 10013 } });
  });

  it('when a discriminator is given, then it must match unless empty or 0; deleted accounts are never found', async () => {
    const directory = new UserDirectory(new MemoryUsers(alice, gone, legacy));
    expect((await directory.byUsername('ALICE', ''))?.id).toBe('100');
    expect((await directory.byUsername('legacy', '1234'))?.id).toBe('102');
    expect(await directory.byUsername('legacy', '9999')).toBeUndefined();
    expect((await directory.byUsername('legacy', '0'))?.id).toBe('102');
    expect(await directory.byUsername('gone', '')).toBeUndefined();
    expect(await directory.byUsername('x'.repeat(65), '')).toBeUndefined();
  });

  it('when ids are at the edges of the signed 64-bit range, then the last one is storable and the next is not', () => {
    expect(isStorableId('9223372036854775807')).toBe(true);
    expect(isStorableId('9223372036854775808')).toBe(false);
    expect(isStorableId('00001')).toBe(true);
    expect(isStorableId('-1')).toBe(false);
  });

  it('when ids are checked for existence, then the unknown ones (unstorable included) come back once each, in order; over 10,000 is 50035', async () => {
    const users = new MemoryUsers(alice);
    const directory = new UserDirectory(users);
    expect(await directory.unknownIds(['5', '100', '5', 'abc', '100'])).toEqual(['5', 'abc']);
    await expect(directory.unknownIds(Array.from({ length: 10_001 }, (_, i) => String(i + 1)))).rejects.toMatchObject({
      body: { code: 50035 },
    });
  });
});
