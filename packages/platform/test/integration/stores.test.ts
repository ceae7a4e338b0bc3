import { createServer } from 'node:net';
import { Redis as RawRedis } from 'ioredis';
import { StringCodec } from 'nats';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import type {} from '../../src/testing/global-setup.js';
import { unique } from '@kith/platform/testing';
import { createLogger } from '../../src/logger.js';
import { connectNats, createRedis } from '../../src/stores.js';

const { REDIS_URL, NATS_URL } = inject('stores');
const sc = StringCodec();

/** A Redis connection without a prefix, to see the keys as the server stores them. */
function rawRedis(): RawRedis {
  const raw = new RawRedis(REDIS_URL);
  onTestFinished(() => void raw.disconnect());
  return raw;
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function captureLogs() {
  const lines: { level: string; msg: string; [k: string]: unknown }[] = [];
  const logger = createLogger('stores-test', 'info', {
    write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]),
  });
  return { logger, lines };
}

describe('createRedis', () => {
  it('when a key is written, then the server stores it under the service prefix', async () => {
    const prefix = `${unique('svc')}:`;
    const key = unique('session');
    const redis = createRedis(REDIS_URL, prefix);
    const raw = rawRedis();
    onTestFinished(async () => {
      await raw.del(`${prefix}${key}`, `${prefix}${key}:count`);
      redis.disconnect();
    });

    await redis.set(key, 'v1', 'EX', 60);
    await redis.incrby(`${key}:count`, 3);

    expect(await raw.get(`${prefix}${key}`)).toBe('v1');
    expect(await raw.get(`${prefix}${key}:count`)).toBe('3');
    expect(await raw.exists(key)).toBe(0);
    expect(await raw.ttl(`${prefix}${key}`)).toBeGreaterThan(0);
    expect(await redis.get(key)).toBe('v1');
  });

  it('when two services use the same key name, then their prefixes keep the values apart', async () => {
    const key = unique('shared');
    const [a, b] = [createRedis(REDIS_URL, `${unique('a')}:`), createRedis(REDIS_URL, `${unique('b')}:`)];
    onTestFinished(async () => {
      await Promise.all([a.del(key), b.del(key)]);
      a.disconnect();
      b.disconnect();
    });
    await a.set(key, 'from-a');
    await b.set(key, 'from-b');
    expect([await a.get(key), await b.get(key)]).toEqual(['from-a', 'from-b']);
  });

  it('when the server cannot be reached, then connection errors are logged as warnings instead of thrown', async () => {
    const { logger, lines } = captureLogs();
    const redis = createRedis(`redis://127.0.0.1:${await closedPort()}`, `${unique('down')}:`, logger);
    onTestFinished(() => redis.disconnect());
    await expect.poll(() => lines.filter((l) => l.msg === 'redis error').length).toBeGreaterThan(0);
    expect(lines.find((l) => l.msg === 'redis error')).toMatchObject({ level: 'warn', err: expect.stringContaining('ECONNREFUSED') });
  });
});

describe('connectNats', () => {
  it('when connected, then a message published on a subject reaches its subscriber', async () => {
    const nc = await connectNats(NATS_URL, unique('platform-test'));
    onTestFinished(() => nc.close());
    const subject = `test.${unique('subj')}`;
    const received = (async () => {
      for await (const msg of nc.subscribe(subject, { max: 1 })) return { data: sc.decode(msg.data), subject: msg.subject };
    })();
    await nc.flush();
    nc.publish(subject, sc.encode('hello'));
    await expect(received).resolves.toEqual({ data: 'hello', subject });
  });

  it('when a request is made, then the responder on that subject answers it', async () => {
    const nc = await connectNats(NATS_URL, unique('platform-test'));
    onTestFinished(() => nc.close());
    const subject = `test.${unique('rpc')}`;
    nc.subscribe(subject, { callback: (_err, msg) => msg.respond(sc.encode(sc.decode(msg.data).toUpperCase())) });
    const reply = await nc.request(subject, sc.encode('ping'), { timeout: 2000 });
    expect(sc.decode(reply.data)).toBe('PING');
  });

  it('when given a comma-separated list with a dead server in it, then it still connects to the live one', async () => {
    const nc = await connectNats(`nats://127.0.0.1:${await closedPort()},${NATS_URL}`, unique('platform-test'));
    onTestFinished(() => nc.close());
    const subject = `test.${unique('list')}`;
    const sub = nc.subscribe(subject, { max: 1 });
    nc.publish(subject, sc.encode('ok'));
    for await (const msg of sub) expect(sc.decode(msg.data)).toBe('ok');
    expect(sub.getProcessed()).toBe(1);
  });

  it('when closed, then the connection reports closed', async () => {
    const nc = await connectNats(NATS_URL, unique('platform-test'));
    const done = nc.closed();
    await nc.close();
    await expect(done).resolves.toBeUndefined();
    expect(nc.isClosed()).toBe(true);
  });
});
