import { createServer } from 'node:net';
import { Metadata, credentials, makeGenericClientConstructor, status, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { describe, expect, it, onTestFinished } from 'vitest';
import { testKeys, unique } from '@kith/platform/testing';
import { ApiError } from '../../src/errors.js';
import { UpstreamError, addService, createClient, startGrpcServer, type ServiceImpl } from '../../src/grpc.js';
import { SERVICE_TOKEN_METADATA, ServiceCallTokens, serviceCalls } from '../../src/service-calls.js';

const testKeysPrivate = () => testKeys().privateKey;

type AuthImpl = ServiceImpl<typeof AuthService>;

const notImplemented = async (): Promise<never> => {
  throw new Error('not used by this test');
};

/** A gRPC server with a fake AuthService on a free port, and a typed client of it; both closed after the test. */
async function serveAuth(impl: Partial<AuthImpl>) {
  // Every method of the contract, as it grows, answers "not used" unless the test gives it.
  const full = {
    ...Object.fromEntries(AuthService.methods.map((m) => [m.localName, notImplemented])),
    ...impl,
  } as AuthImpl;
  const server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    register: (s) => {
      addService(s, AuthService, full);
      return [AuthService.typeName];
    },
  });
  const address = `127.0.0.1:${server.port}`;
  const client = createClient(AuthService, address);
  let closed = false;
  onTestFinished(async () => {
    client.close();
    if (!closed) await server.close(1000);
  });
  return { server, address, client, close: async (graceMs?: number) => ((closed = true), await server.close(graceMs)) };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('expected the call to fail'),
    (err: unknown) => err,
  );
}

/** A port nothing listens on: bound once to learn a free number, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Calls the standard grpc.health.v1.Health/Check with the definition grpc-health-check loads from its own proto. */
function healthCheck(address: string, service: string): Promise<{ status: string }> {
  const Health = makeGenericClientConstructor(healthService, 'Health');
  const client = new Health(address, credentials.createInsecure());
  return new Promise<{ status: string }>((resolve, reject) => {
    client.makeUnaryRequest(
      healthService.Check!.path,
      healthService.Check!.requestSerialize,
      healthService.Check!.responseDeserialize,
      { service },
      new Metadata(),
      { deadline: Date.now() + 2000 },
      (err: ServiceError | null, res?: unknown) => (err ? reject(err) : resolve(res as { status: string })),
    );
  }).finally(() => client.close());
}

describe('gRPC server and client', () => {
  it('when a typed request is sent, then the impl gets it and the client gets the typed response', async () => {
    const seen: unknown[] = [];
    const { client } = await serveAuth({
      validateToken: async (req, meta) => {
        seen.push({ token: req.token, clientIp: req.clientIp, hasMetadata: meta instanceof Metadata });
        return { valid: true, userId: '175928847299117063', sessionId: 'sess-1', flags: '18014398509481984', bot: false };
      },
      getUsers: async (req) => ({
        users: req.userIds.map((id, i) => ({
          id,
          username: `user${i}`,
          discriminator: '0',
          globalName: i === 0 ? 'Ünïcode 名前' : undefined,
          publicFlags: 1n << 40n,
          bot: i === 1,
        })),
      }),
    });
    const token = unique('tok');

    const validated = await client.validateToken({ token, clientIp: '203.0.113.7' });
    expect(seen).toEqual([{ token, clientIp: '203.0.113.7', hasMetadata: true }]);
    expect(validated).toMatchObject({
      valid: true,
      userId: '175928847299117063',
      sessionId: 'sess-1',
      flags: '18014398509481984',
      bot: false,
    });

    const { users } = await client.getUsers({ userIds: ['1', '2'] });
    expect(users.map((u) => [u.id, u.username, u.globalName, u.avatar, u.publicFlags, u.bot])).toEqual([
      ['1', 'user0', 'Ünïcode 名前', undefined, 1n << 40n, false],
      ['2', 'user1', undefined, undefined, 1n << 40n, true],
    ]);
  });

  it('when the impl throws a platform ApiError, then the client throws an ApiError with the same status and body', async () => {
    const { client } = await serveAuth({
      getUsers: async () => {
        throw ApiError.of('UNKNOWN_USER');
      },
    });
    const err = await rejection(client.getUsers({ userIds: ['9'] }));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
    expect((err as ApiError).body).toEqual({ code: 10013, message: 'Unknown User' });
  });

  it('when the ApiError body has nested errors and non-ASCII text, then it still arrives intact', async () => {
    const body = ApiError.form({ username: { code: 'USERNAME_ALREADY_TAKEN', message: 'Username "Zoë 🦊" is unavailable.' } });
    const { client } = await serveAuth({
      validateToken: async () => {
        throw body;
      },
    });
    const err = await rejection(client.validateToken({ token: 't' }));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).body).toEqual(body.body);
  });

  it('when the impl throws a plain Error, then the client throws a 502 UpstreamError without the error text', async () => {
    const { client } = await serveAuth({
      validateToken: async () => {
        throw new Error('connection string postgres://secret');
      },
    });
    const err = await rejection(client.validateToken({ token: 't' }));
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).status).toBe(502);
    expect((err as Error).message).not.toContain('secret');
  });

  it('when the impl returns a message that cannot be encoded, then the client throws a 502 UpstreamError', async () => {
    const { client } = await serveAuth({
      getUsers: async () => ({ users: [{ id: '1', publicFlags: 'not a number' as unknown as bigint }] }),
    });
    const err = await rejection(client.getUsers({ userIds: ['1'] }));
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).status).toBe(502);
  });

  it('when the impl never answers, then the client throws a 504 UpstreamError once its deadline passes', async () => {
    let release!: () => void;
    const { client } = await serveAuth({ validateToken: () => new Promise((resolve) => (release = () => resolve({ valid: true }))) });
    // Nothing but the deadline can end this call: the handler answers only after it has failed.
    const err = await rejection(client.validateToken({ token: 't' }, { deadlineMs: 150 }));
    release();
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).status).toBe(504);
  });

  it('when nothing listens at the address, then the client throws a 503 UpstreamError', async () => {
    const client = createClient(AuthService, `127.0.0.1:${await closedPort()}`);
    onTestFinished(() => client.close());
    const err = await rejection(client.validateToken({ token: 't' }));
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).status).toBe(503);
  });

  it('when an impl lacks a method of the contract, then adding the service fails loudly', async () => {
    const attempt = startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      register: (s) => {
        addService(s, AuthService, { validateToken: async () => ({ valid: false }) } as unknown as AuthImpl);
        return [];
      },
    });
    await expect(attempt).rejects.toThrow('auth.v1.AuthService.GetUsers has no implementation');
  });
});

/** GetUsers as a bare grpc-js client sends it (an empty request), with the metadata given. */
function rawGetUsers(address: string, metadata: Metadata): Promise<ServiceError | null> {
  const passThrough = (b: Buffer) => b;
  const definition = {
    getUsers: {
      path: '/auth.v1.AuthService/GetUsers',
      requestStream: false,
      responseStream: false,
      requestSerialize: passThrough,
      requestDeserialize: passThrough,
      responseSerialize: passThrough,
      responseDeserialize: passThrough,
    },
  };
  const client = new (makeGenericClientConstructor(definition, 'AuthService'))(address, credentials.createInsecure());
  return new Promise<ServiceError | null>((resolve) =>
    (client as unknown as { getUsers: Function }).getUsers(
      Buffer.alloc(0),
      metadata,
      { deadline: Date.now() + 2000 },
      (err: ServiceError | null) => resolve(err),
    ),
  ).finally(() => client.close());
}

describe('gRPC calls between services', () => {
  it('when a caller sends no service token, a token of another key, or one for another service, then the handler never runs', async () => {
    let ran = 0;
    const { address, client } = await serveAuth({ getUsers: async () => (ran++, { users: [] }) });
    const foreign = new ServiceCallTokens();
    foreign.configure(testKeysPrivate(), 'intruder');
    const withToken = (token: string) => {
      const metadata = new Metadata();
      metadata.set(SERVICE_TOKEN_METADATA, `Bearer ${token}`);
      return metadata;
    };

    for (const metadata of [
      new Metadata(),
      withToken('not.a.token'),
      withToken(foreign.tokenFor('auth.v1.AuthService')),
      withToken(serviceCalls.tokenFor('guilds.v1.GuildsService')),
    ])
      expect((await rawGetUsers(address, metadata))?.code).toBe(status.UNAUTHENTICATED);
    expect(ran).toBe(0);

    // The platform's own client signs every call with this process's key: answered.
    await expect(client.getUsers({ userIds: [] })).resolves.toMatchObject({ users: [] });
    expect((await rawGetUsers(address, withToken(serviceCalls.tokenFor('auth.v1.AuthService'))))?.code).toBeUndefined();
    expect(ran).toBe(2);
  });
});

describe('gRPC health and shutdown', () => {
  it('when the standard health service is asked, then the server and each registered service are SERVING', async () => {
    const { address } = await serveAuth({});
    await expect(healthCheck(address, '')).resolves.toEqual({ status: 'SERVING' });
    await expect(healthCheck(address, 'auth.v1.AuthService')).resolves.toEqual({ status: 'SERVING' });
    const unknown = await rejection(healthCheck(address, unique('svc')));
    expect((unknown as ServiceError).code).toBe(status.NOT_FOUND);
  });

  it('when closed with a call in flight, then close waits for the call to finish, and later calls get 503', async () => {
    let arrived!: () => void;
    let release!: () => void;
    const inHandler = new Promise<void>((resolve) => (arrived = resolve));
    const { client, close } = await serveAuth({
      validateToken: () =>
        new Promise((resolve) => {
          release = () => resolve({ valid: true, userId: '5' });
          arrived();
        }),
    });
    const inFlight = client.validateToken({ token: 't' }, { deadlineMs: 30_000 });
    await inHandler;
    const order: string[] = [];
    const closing = close(30_000).then(() => order.push('closed'));
    await new Promise((resolve) => setImmediate(resolve));
    order.push('answered');
    release();
    await closing;
    // The call was answered, not cancelled, and close resolved only after it.
    await expect(inFlight).resolves.toMatchObject({ valid: true, userId: '5' });
    expect(order).toEqual(['answered', 'closed']);
    const after = await rejection(client.validateToken({ token: 't' }));
    expect(after).toBeInstanceOf(UpstreamError);
    expect((after as UpstreamError).status).toBe(503);
  });

  it('when a call hangs past the grace period, then close still resolves by forcing the shutdown', async () => {
    let arrived!: () => void;
    const inHandler = new Promise<void>((resolve) => (arrived = resolve));
    const { client, close } = await serveAuth({ validateToken: () => (arrived(), new Promise<never>(() => undefined)) });
    const hung = rejection(client.validateToken({ token: 't' }, { deadlineMs: 30_000 }));
    await inHandler;
    // The handler never answers: only the forced shutdown can let close resolve and end the call.
    await close(200);
    expect(await hung).toBeInstanceOf(UpstreamError);
  });
});
