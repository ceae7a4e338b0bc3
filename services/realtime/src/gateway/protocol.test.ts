import { describe, expect, it } from 'vitest';
import { DispatchFrames, decodeFrame, dispatchFrame, formAccepted, identifyData, isKnownOp, opFrame, presentedToken } from './protocol.js';

describe('decodeFrame', () => {
  it('when a frame is JSON with an integer op, then its op and data; text and binary alike', () => {
    expect(decodeFrame(Buffer.from('{"op":1,"d":null}'))).toEqual({ op: 1, d: null });
    expect(decodeFrame([Buffer.from('{"op":2,'), Buffer.from('"d":{"token":"t"}}')])).toEqual({ op: 2, d: { token: 't' } });
  });

  it('when a frame is not JSON, not an object, or has no integer op, then undefined', () => {
    for (const raw of ['', 'nope', '[]', '1', '{"d":1}', '{"op":"1"}', '{"op":1.5}', '{"op":null}']) {
      expect(decodeFrame(Buffer.from(raw)), raw).toBeUndefined();
    }
  });
});

describe('Identify data', () => {
  it('when token and properties are there, then it passes with the optional fields kept', () => {
    const parsed = identifyData.parse({ token: 't', properties: { os: 'linux' }, intents: 0, compress: true, shard: [0, 1], presence: {} });
    expect(parsed).toMatchObject({ token: 't', compress: true, shard: [0, 1], presence: {} });
  });

  it('when the token is missing or a shard is malformed, then it fails', () => {
    expect(identifyData.safeParse({ properties: {} }).success).toBe(false);
    expect(identifyData.safeParse({ token: 't', properties: {}, shard: [0, 0] }).success).toBe(false);
  });
});

describe('helpers', () => {
  it('when a token has a Bot or Bearer prefix (any case), then its form is that and the token is what follows', () => {
    expect(presentedToken('Bot abc')).toEqual({ form: 'bot', token: 'abc' });
    expect(presentedToken('bOT\tabc')).toEqual({ form: 'bot', token: 'abc' });
    expect(presentedToken('bearer  abc ')).toEqual({ form: 'bearer', token: 'abc' });
    expect(presentedToken(' abc ')).toEqual({ form: 'bare', token: 'abc' });
    expect(presentedToken('Botabc')).toEqual({ form: 'bare', token: 'Botabc' });
  });

  it('when a form is checked against the owner, then bare suits both kinds, Bot only bots, Bearer nobody', () => {
    expect(formAccepted('bare', { bot: false })).toBe(true);
    expect(formAccepted('bare', { bot: true })).toBe(true);
    expect(formAccepted('bot', { bot: true })).toBe(true);
    expect(formAccepted('bot', { bot: false })).toBe(false);
    expect(formAccepted('bearer', { bot: false })).toBe(false);
    expect(formAccepted('bearer', { bot: true })).toBe(false);
  });

  it('when frames are built, then op 0 has t and s, other ops null ones', () => {
    expect(JSON.parse(dispatchFrame('READY', 1, { a: 1 }))).toEqual({ op: 0, t: 'READY', s: 1, d: { a: 1 } });
    expect(JSON.parse(opFrame(11, null))).toEqual({ op: 11, d: null, s: null, t: null });
  });

  it('when an op is one clients send, then it is known; server-only and made-up ops are not', () => {
    expect([1, 2, 3, 4, 6, 8].every(isKnownOp)).toBe(true);
    expect([0, 7, 9, 10, 11, 99].some(isKnownOp)).toBe(false);
  });
});

describe('DispatchFrames', () => {
  it('when one event is framed for several sequence numbers, then each frame is the text dispatchFrame makes', () => {
    const data = { id: '1', content: 'he said "hi" \u2028 ✓', nested: { list: [1, null, true] }, gone: undefined };
    const frames = new DispatchFrames('MESSAGE_CREATE', data);
    for (const seq of [1, 42, 1000000]) {
      expect(frames.frame(seq)).toBe(dispatchFrame('MESSAGE_CREATE', seq, data));
      expect(JSON.parse(frames.frame(seq))).toEqual({
        op: 0,
        t: 'MESSAGE_CREATE',
        s: seq,
        d: { id: '1', content: data.content, nested: data.nested },
      });
    }
    expect(new DispatchFrames('RESUMED', null).frame(3)).toBe(dispatchFrame('RESUMED', 3, null));
  });
});
