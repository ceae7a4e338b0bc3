import { connect, type NatsConnection } from 'nats';
import type { EventEnvelope } from '@kith/platform';
import { unique } from '@kith/platform/testing';
import { call, type Answer, type CallOptions } from '../../../../gateway/test/integration/harness.js';
import { Permission } from '../../src/domain/permissions.js';
import { createGuild, join, newUser, sendRaw, startGuildsStack, stopGuildsStack, type GuildsStack } from './harness.js';

/**
 * The real system for the channel tests: the guilds test stack (auth, guilds, the edge, a gRPC
 * client and the guilds database, to seed hundreds of channels for the limits) and every
 * `events.guilds.>` message NATS carries.
 */

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
  /** The 50035 body's per-field tree, read by field name (the assertions check it is there). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  errors: any;
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
  readonly guilds: GuildsStack['guilds'];
  readonly db: GuildsStack['db'];
  readonly grpc: GuildsStack['grpc'];

  private constructor(
    private readonly stack: GuildsStack,
    private readonly nats: NatsConnection,
  ) {
    ({ guilds: this.guilds, db: this.db, grpc: this.grpc } = stack);
  }

  static async start(): Promise<ChannelSystem> {
    const stack = await startGuildsStack();
    const nats = await connect({ servers: stack.under.stores.NATS_URL });
    const system = new ChannelSystem(stack, nats);
    nats.subscribe('events.guilds.>', { callback: (_err, msg) => system.events.push(msg.json<EventEnvelope<Reply>>()) });
    return system;
  }

  async stop(): Promise<void> {
    await this.nats.drain().catch(() => undefined);
    await stopGuildsStack(this.stack);
  }

  call<T = ReplyList>(user: User | null, path: string, options: CallOptions = {}): Promise<Answer<T>> {
    return call<T>(this.stack.base, `/api/v9${path}`, { ...(user ? { token: user.token } : {}), ...options });
  }

  /** A request with a body sent exactly as given (broken JSON). */
  raw(user: User, method: 'POST' | 'PATCH' | 'PUT', path: string, body: string): Promise<{ status: number; body: Reply }> {
    return sendRaw(this.stack, user, method, path, body);
  }

  async user(): Promise<User> {
    const { userId, token } = await newUser(this.stack);
    return { id: userId, token };
  }

  /** A guild created by `owner` (POST /guilds), joined by `members`; `everyone` is the `@everyone` role's bits. */
  async guild(owner: User, members: User[] = [], everyone = EVERYONE_DEFAULT): Promise<string> {
    const guildId: string = (await createGuild(this.stack, owner, unique('g'))).id;
    for (const m of members) await join(this.stack, guildId, { userId: m.id });
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
