import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './gateway.client.js';
import { newUser, publishEvent, startStack, startTestRealtime, stopStack, type RealtimeUnderTest, type Stack } from './harness.js';

let stack: Stack;
let realtime: RealtimeUnderTest;

beforeAll(async () => {
  stack = await startStack();
  realtime = await startTestRealtime(stack);
});

afterAll(async () => {
  await stopStack(stack);
});

const SYNC_FLUSH_TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff]);

describe('compression', () => {
  it('when a client connects with compress=zlib-stream, then every frame is binary, ends in 00 00 ff ff and inflates in one shared context', async () => {
    const user = await newUser(stack);
    const { client, ready } = await GatewayClient.ready(realtime.url, user.token, {
      query: 'v=9&encoding=json&compress=zlib-stream',
      inflate: 'zlib-stream',
    });
    expect(ready.user).toMatchObject({ id: user.userId });
    for (let i = 0; i < 3; i++) await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { i } });
    await client.next((f) => (f.d as { i?: number }).i === 2);
    client.send(1, null);
    await client.next((f) => f.op === 11);

    expect(client.frames.map((f) => f.op)).toEqual([10, 0, 0, 0, 0, 11]);
    expect(client.binary).toHaveLength(client.frames.length);
    for (const message of client.binary) expect(message.subarray(-4)).toEqual(SYNC_FLUSH_TAIL);
    // Only the first message carries the zlib header: the context is shared, not restarted.
    expect(client.binary[0]![0]).toBe(0x78);
    expect(client.binary.slice(1).some((m) => m[0] === 0x78 && m[1] === 0x9c)).toBe(false);
    client.close();
  });

  it('when Identify asks for compress: true, then frames after it are zlib-deflated one by one as binary', async () => {
    const user = await newUser(stack);
    const { client, ready } = await GatewayClient.ready(realtime.url, user.token, { identify: { compress: true }, inflate: 'payload' });
    expect(ready.session_id).toMatch(/^[0-9a-f]{32}$/);
    await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { ok: true } });
    expect(await client.next((f) => f.t === 'RELATIONSHIP_ADD')).toMatchObject({ s: 2, d: { ok: true } });
    // Hello went out before Identify, as text; READY and the dispatch are binary.
    expect(client.binary).toHaveLength(2);
    client.close();
  });
});
