import { describe, expect, it } from 'vitest';
import { updatedUserId } from './user-updates.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('updatedUserId', () => {
  it("reads the user's id from auth's event envelope", () => {
    const envelope = { id: '1', service: 'auth', name: 'USER_UPDATE', audience: { users: ['42'] }, data: { id: '42', username: 'x' } };
    expect(updatedUserId(bytes(JSON.stringify(envelope)))).toBe('42');
  });

  it.each([
    ['not JSON', 'not json'],
    ['no data', '{"name":"USER_UPDATE"}'],
    ['a non-string id', '{"data":{"id":42}}'],
    ['null', 'null'],
  ])('answers nothing for %s', (_case, text) => {
    expect(updatedUserId(bytes(text))).toBeUndefined();
  });
});
