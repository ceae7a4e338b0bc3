import { generateKeyPairSync } from 'node:crypto';
import { Metadata, credentials, makeGenericClientConstructor, status, type ServiceError } from '@grpc/grpc-js';
import { describe, expect, inject, it } from 'vitest';
import { ServiceCallTokens, createClient } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { newUser, api } from './client.js';

/**
 * The services' gRPC APIs answer only processes of the deployment: a process on the same host
 * that calls auth's GetCurrentUser (any user's email) without the deployment's service key, or
 * with a token of another key, is refused.
 */

const authGrpc = () => `127.0.0.1:${50051 + inject('portOffset')}`;

/** GetCurrentUser as a bare grpc-js client sends it: the request bytes, with the metadata given. */
function rawGetCurrentUser(metadata: Metadata): Promise<ServiceError | null> {
  const Client = makeGenericClientConstructor(
    {
      getCurrentUser: {
        path: '/auth.v1.AuthService/GetCurrentUser',
        requestStream: false,
        responseStream: false,
        requestSerialize: (b: Buffer) => b,
        requestDeserialize: (b: Buffer) => b,
        responseSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      },
    },
    'AuthService',
  );
  const client = new Client(authGrpc(), credentials.createInsecure());
  return new Promise((resolve) => {
    // Field 1 (user_id), a string: an empty request is enough to be refused or answered.
    (client as unknown as { getCurrentUser: Function }).getCurrentUser(
      Buffer.alloc(0),
      metadata,
      { deadline: Date.now() + 5000 },
      (err: ServiceError | null) => {
        client.close();
        resolve(err);
      },
    );
  });
}

describe('calls between services', () => {
  it('when a process without the service key calls auth over gRPC, then it is refused before any handler runs', async () => {
    const refused = await rawGetCurrentUser(new Metadata());
    expect(refused?.code).toBe(status.UNAUTHENTICATED);

    const foreign = new ServiceCallTokens();
    foreign.configure(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'intruder');
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${foreign.tokenFor('auth.v1.AuthService')}`);
    expect((await rawGetCurrentUser(metadata))?.code).toBe(status.UNAUTHENTICATED);
  });

  it('when a process of the deployment calls, then it is answered, and the edge’s own calls keep working', async () => {
    const user = await newUser();
    const me = await api('GET', '/users/@me', { token: user.token });
    expect(me.status).toBe(200);
    const auth = createClient(AuthService, authGrpc(), 5000);
    try {
      const answer = await auth.getCurrentUser({ userId: me.json.id as string });
      expect(answer.user?.email).toBe(user.email);
    } finally {
      auth.close();
    }
  });
});
