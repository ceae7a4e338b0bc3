import { connect, type NatsConnection } from 'nats';
import { request } from 'undici';
import { createClient, createDatabase, type EventEnvelope, type Kysely, type ServiceClient } from '@kith/platform';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { unique } from '@kith/platform/testing';
import {
  call,
  registerUser,
  startTestAuth,
  startTestGateway,
  stopAll,
  type Answer,
  type AuthUnderTest,
  type CallOptions,
} from '../../../../gateway/test/integration/harness.js';
import { startGuilds, type RunningGuilds } from '../../src/app.js';
import { guildsConfigSchema } from '../../src/config.js';
import { Permission } from '../../src/domain/permissions.js';
import type { GuildsDatabase } from '../../src/store/schema.js';

/**
 * The real system for the channel tests: auth, guilds and the edge in front of them, a gRPC client
 * of guilds, the guilds database (to seed hundreds of channels for the limits) and every
 * `events.guilds.>` message NATS carries.
 */

const DB_PREFIX = 'kith_test_chan';

/** What a new guild's `@everyone` role has on the platform. */
export const EVERYONE_DEFAULT =
  Permission.VIEW_CHANNEL |
  Permission.SEND_MESSAGES |
  Permission.READ_MESSAGE_HISTORY |
  Permission.CREATE_PUBLIC_THREADS |
  Permission.CREATE_PRIVATE_THREADS |
  Permission.SEND_MESSAGES_IN_THREADS |
  Permission.ADD_REACTIONS;

/** What the tests read of an answer or an event's data (the assertions check the shapes). */
export interface Reply {
  id: string;
  type: number;
  name: string;
  code: number;
  errors: Record<string, { _errors: { code: string }[] } & Record<string, { _errors: { code: string }[] }>>;
  recipients: { id: string }[];
  thread_metadata: { archived: boolean; locked: boolean; create_timestamp: string };
  threads: Reply[];
  channel_id: string;
  user: { id: string };
  newly_created: boolean;
  [field: string]: unknown;
}
export type ReplyList = Reply[] & Reply;

export interface User {
  id: string;
  token: string;
}

export class ChannelSystem {
  readonly events: EventEnvelope<Reply>[] = [];

  private constructor(
    private readonly under: AuthUnderTest,
    readonly guilds: RunningGuilds,
    private readonly gateway: Awaited<ReturnType<typeof startTestGateway>>,
    readonly db: Kysely<GuildsDatabase>,
    private readonly nats: NatsConnection,
    readonly grpc: ServiceClient<typeof GuildsService>,
  ) {}

  static async start(): Promise<ChannelSystem> {
    const under = await startTestAuth();
    const config = guildsConfigSchema.parse({
      ...under.stores,
      HTTP_PORT: '0',
      GRPC_PORT: '0',
      DB_PREFIX,
      LOG_LEVEL: 'silent',
      INTERNAL_TOKEN_PUBLIC_KEY: under.keys.publicKey,
      AUTH_GRPC_ADDR: `127.0.0.1:${under.auth.grpcPort}`,
    });
    const guilds = await startGuilds(config);
    const gateway = await startTestGateway(under, { GUILDS_HTTP_URL: `http://127.0.0.1:${guilds.httpPort}` });
    const url = new URL(under.stores.DATABASE_URL);
    url.pathname = `/${DB_PREFIX}_guilds`;
    const db = createDatabase<GuildsDatabase>({ url: url.toString(), maxConnections: 4 });
    const nats = await connect({ servers: under.stores.NATS_URL });
    const grpc = createClient(GuildsService, `127.0.0.1:${guilds.grpcPort}`, 10_000);
    const system = new ChannelSystem(under, guilds, gateway, db, nats, grpc);
    nats.subscribe('events.guilds.>', { callback: (_err, msg) => system.events.push(msg.json<EventEnvelope<Reply>>()) });
    return system;
  }

  async stop(): Promise<void> {
    this.grpc.close();
    await this.nats.drain().catch(() => undefined);
    await this.db.destroy().catch(() => undefined);
    await stopAll(this.gateway.closers, this.guilds.closers, this.under.auth.closers);
  }

  call<T = ReplyList>(user: User | null, path: string, options: CallOptions = {}): Promise<Answer<T>> {
    return call<T>(this.gateway.base, `/api/v9${path}`, { ...(user ? { token: user.token } : {}), ...options });
  }

  /** A request with a body sent exactly as given (broken JSON). */
  async raw(user: User, method: 'POST' | 'PATCH' | 'PUT', path: string, body: string): Promise<{ status: number; body: Reply }> {
    const res = await request(`${this.gateway.base}/api/v9${path}`, {
      method,
      headers: { authorization: user.token, 'content-type': 'application/json' },
      body,
    });
    return { status: res.statusCode, body: (await res.body.json()) as Reply };
  }

  async user(): Promise<User> {
    const { token } = await registerUser(this.gateway.base);
    const me = await call<{ id: string }>(this.gateway.base, '/api/v9/users/@me', { token });
    return { id: me.body.id, token };
  }

  /** A guild created by `owner` (POST /guilds), joined by `members`; `everyone` is the `@everyone` role's bits. */
  async guild(owner: User, members: User[] = [], everyone = EVERYONE_DEFAULT): Promise<string> {
    const created = await this.call(owner, '/guilds', { json: { name: unique('g') } });
    if (created.status !== 201) throw new Error(`create guild answered ${created.status}: ${created.text}`);
    const guildId = created.body.id;
    for (const m of members) {
      const joined = await this.grpc.addMember({ guildId, userId: m.id });
      if (joined.errorCode !== 0) throw new Error(`AddMember refused with ${joined.errorCode}`);
    }
    const res = await this.call(owner, `/guilds/${guildId}/roles/${guildId}`, {
      method: 'PATCH',
      json: { permissions: everyone.toString() },
    });
    if (res.status !== 200) throw new Error(`edit @everyone answered ${res.status}: ${res.text}`);
    return guildId;
  }

  /** A role with these bits (created by the guild's owner) given to these members. */
  async role(owner: User, guildId: string, permissions: bigint, members: User[] = []): Promise<string> {
    const role = await this.call(owner, `/guilds/${guildId}/roles`, { json: { name: unique('r'), permissions: permissions.toString() } });
    if (role.status !== 200) throw new Error(`create role answered ${role.status}: ${role.text}`);
    for (const m of members) {
      const put = await this.call(owner, `/guilds/${guildId}/members/${m.id}/roles/${role.body.id}`, { method: 'PUT' });
      if (put.status !== 204) throw new Error(`add role answered ${put.status}: ${put.text}`);
    }
    return role.body.id;
  }

  /** The first event matching, waiting for the relay to publish it. */
  async event(match: (e: EventEnvelope<Reply>) => boolean, timeoutMs = 10_000): Promise<EventEnvelope<Reply>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error('no such event was published');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
