import { describe, expect, it } from 'vitest';
import { parseEnvelope } from './envelope.js';

const valid = {
  id: 'e1',
  name: 'RELATIONSHIP_UPDATE',
  service: 'social',
  occurred_at: '2026-01-01T00:00:00.000Z',
  audience: { users: ['u1'] },
  data: { id: 'u2', nickname: 'n' },
};

const encode = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));

describe('parseEnvelope', () => {
  it('when the message is an envelope, then it is returned whole, unknown keys included', () => {
    const envelope = {
      ...valid,
      internal: { revoked_session_ids: ['a'] },
      audience: { users: ['u1'], guilds: ['g1'], channels: [], sessions: [{ id: 's1', user_id: 'u1' }] },
      extra: 1,
    };
    expect(parseEnvelope(encode(envelope))).toEqual(envelope);
  });

  it('when the envelope has no data or an empty audience, then it is still one', () => {
    const { data: _data, ...withoutData } = valid;
    expect(parseEnvelope(encode({ ...withoutData, audience: {} }))).toEqual({ ...withoutData, audience: {} });
  });

  it('when the message is a slice of a larger buffer, then only its own bytes are read', () => {
    const bytes = encode(`xx${JSON.stringify(valid)}yy`);
    expect(parseEnvelope(bytes.subarray(2, bytes.length - 2))).toEqual(valid);
  });

  it.each([
    ['not JSON', '{"id":'],
    ['JSON that is not an object', '[1,2]'],
    ['null', 'null'],
    ['an empty id', { ...valid, id: '' }],
    ['a numeric id', { ...valid, id: 7 }],
    ['a lower-case name', { ...valid, name: 'relationship_update' }],
    ['a missing name', { ...valid, name: undefined }],
    ['a missing service', { ...valid, service: undefined }],
    ['a numeric occurred_at', { ...valid, occurred_at: 0 }],
    ['no audience', { ...valid, audience: undefined }],
    ['an audience that is an array', { ...valid, audience: ['u1'] }],
    ['audience users that are not strings', { ...valid, audience: { users: [1] } }],
    ['audience guilds that are null', { ...valid, audience: { guilds: null } }],
    ['audience channels that are a string', { ...valid, audience: { channels: 'c1' } }],
    ['audience sessions that are strings', { ...valid, audience: { sessions: ['s1'] } }],
    ['an audience session without its user', { ...valid, audience: { sessions: [{ id: 's1' }] } }],
    ['internal that is not an object', { ...valid, internal: 'x' }],
    ['revoked sessions that are not strings', { ...valid, internal: { revoked_session_ids: [{}] } }],
    ['a moved-to session without its hash', { ...valid, internal: { revoked_session_ids: ['a'], moved_to_session: { id: 'b' } } }],
  ])('when the message has %s, then it is not an envelope', (_what, value) => {
    expect(parseEnvelope(encode(value))).toBeUndefined();
  });
});
