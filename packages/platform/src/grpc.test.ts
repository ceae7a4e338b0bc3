import type { DescService } from '@bufbuild/protobuf';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { describe, expect, it } from 'vitest';
import { createClient, grpcClientOf } from './grpc.js';

/** AuthService with one more RPC of the given name, as a generated descriptor would carry it. */
function withRpc(name: string): DescService {
  const extra = { ...AuthService.methods[0]!, name, localName: name[0]!.toLowerCase() + name.slice(1) };
  return { ...AuthService, methods: [...AuthService.methods, extra] } as DescService;
}

describe('createClient', () => {
  it.each(['Close', 'Then', 'HasOwnProperty', 'IsPrototypeOf'])(
    'when a contract has an RPC named %s, then no client is made (it would hide the client’s own member)',
    (name) => {
      expect(() => createClient(withRpc(name), '127.0.0.1:1')).toThrow(
        `a client keeps '${name[0]!.toLowerCase() + name.slice(1)}' for itself`,
      );
    },
  );

  it('when an RPC is named like a grpc-js Client method, then the client gets it and keeps its own', () => {
    const client = createClient(withRpc('GetChannel'), '127.0.0.1:1') as unknown as Record<string, unknown>;
    try {
      const inner = grpcClientOf(client as never);
      expect(typeof client.getChannel).toBe('function');
      expect(client.getChannel).not.toBe(inner.getChannel);
      expect(typeof inner.getChannel().getTarget()).toBe('string');
    } finally {
      (client.close as () => void)();
    }
  });
});
