import { youtube } from '@googleapis/youtube';
import { ApiClient } from '@twurple/api';
import { StaticAuthProvider } from '@twurple/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { unique } from '@kith/platform/testing';
import { stopAll } from '../../../../gateway/test/integration/harness.js';
import { startRealtime, type RunningRealtime } from '../../../realtime/src/app.js';
import { realtimeConfigSchema } from '../../../realtime/src/config.js';
import { GatewayClient, type ServerFrame } from '../../../realtime/test/integration/gateway.client.js';
import {
  api,
  newGuild,
  newUser,
  publishedEvents,
  startIntegrationsStack,
  stopIntegrationsStack,
  type Body,
  type IntegrationsStack,
  type StackUser,
} from './harness.js';

let stack: IntegrationsStack;
/** The gateway's realtime service over the same guilds and NATS: what a member's socket hears. */
let realtime: RunningRealtime;

beforeAll(async () => {
  stack = await startIntegrationsStack();
  realtime = await startRealtime(
    realtimeConfigSchema.parse({
      HTTP_PORT: '0',
      LOG_LEVEL: 'silent',
      REDIS_URL: stack.under.stores.REDIS_URL,
      NATS_URL: stack.under.stores.NATS_URL,
      AUTH_GRPC_ADDR: `127.0.0.1:${stack.under.auth.grpcPort}`,
      GUILDS_GRPC_ADDR: `127.0.0.1:${stack.guilds.grpcPort}`,
      INTERNAL_TOKEN_PUBLIC_KEY: stack.under.keys.publicKey,
      SHUTDOWN_GRACE_MS: '300',
      REPLICA_ID: unique('rt'),
    }),
  );
});
afterAll(async () => {
  if (realtime) await stopAll(realtime.closers);
  await stopIntegrationsStack(stack);
});

let n = 0;
const accountId = () => String(7_000_000 + (Date.now() % 1_000_000) * 10 + n++);

/** `user` connects the platform account through the provider's OAuth2 code flow, as a browser would. */
async function connect(user: StackUser, type: 'twitch' | 'youtube', account: string): Promise<Body> {
  const start = await api(stack, user, 'GET', `/connections/${type}/authorize`);
  expect(start.status).toBe(200);
  stack.streaming.nextLogin[type] = account;
  const consent = await fetch(start.body.url as string, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location')!);
  const res = await api(stack, user, 'POST', `/connections/${type}/callback`, {
    code: back.searchParams.get('code'),
    state: back.searchParams.get('state'),
  });
  expect(res.status).toBe(200);
  return res.body;
}

/**
 * Sync Guild Integration answers at once (204, `syncing: true`) and a worker runs the sync: done
 * once its job is gone and the integration shows `syncing: false` again.
 */
async function synced(user: StackUser, guildId: string, integrationId: string): Promise<void> {
  const res = await api(stack, user, 'POST', `/guilds/${guildId}/integrations/${integrationId}/sync`);
  expect(res.status).toBe(204);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const job = await stack.db
      .selectFrom('integration_sync_jobs')
      .select('attempts')
      .where('integration_id', '=', integrationId)
      .executeTakeFirst();
    const row = await stack.db.selectFrom('integrations').select('syncing').where('id', '=', integrationId).executeTakeFirstOrThrow();
    if (!job && row.syncing === false) return;
    if (Date.now() > deadline) throw new Error(`sync of ${integrationId} did not finish (job: ${JSON.stringify(job)})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function rolesOf(guildId: string, userId: string): Promise<string[] | undefined> {
  const { found, member } = await stack.guildsGrpc.getMember({ guildId, userId });
  return found ? member!.roleIds : undefined;
}

const lapseBy = (integrationId: string, account: string, days: number) =>
  stack.db
    .updateTable('integration_subscribers')
    .set({ lapsed_at: sql`now() - make_interval(days => ${days})` })
    .where('integration_id', '=', integrationId)
    .where('account_id', '=', account)
    .execute();

describe('the loopback streaming platforms speak their APIs', () => {
  it('when Twitch’s own client (@twurple, mock mode) and Google’s (@googleapis/youtube) read the stand-in, then they get the accounts', async () => {
    const id = accountId();
    stack.streaming.addAccount('twitch', { id, name: 'TwurpleReads' });
    const token = JSON.parse(
      await (
        await fetch(`${stack.gifs.url}/oauth2/token`, {
          method: 'POST',
          body: new URLSearchParams({
            client_id: 'twitch-client',
            client_secret: 'twitch-secret',
            grant_type: 'authorization_code',
            code: stack.streaming.issueCode('twitch', id),
          }),
        })
      ).text(),
    ).access_token as string;
    process.env.TWURPLE_MOCK_API_PORT = new URL(stack.gifs.url).port;
    try {
      const twitch = new ApiClient({ authProvider: new StaticAuthProvider('twitch-client', token) });
      const user = await twitch.users.getUserById(id);
      expect(user?.displayName).toBe('TwurpleReads');
      stack.streaming.emotes.set(id, [
        { id: 'emotesv2_read', name: 'twurpleRead', tier: '1000', emote_type: 'subscriptions', format: ['static'] },
      ]);
      const [emote] = await twitch.chat.getChannelEmotes(id);
      expect(emote).toMatchObject({ id: 'emotesv2_read', name: 'twurpleRead', tier: '1000', type: 'subscriptions', formats: ['static'] });
      expect(emote!.getStaticImageUrl('3.0')).toContain('emotesv2_read');
    } finally {
      delete process.env.TWURPLE_MOCK_API_PORT;
    }

    stack.streaming.addAccount('youtube', { id: 'UC_google_reads', name: 'Google Reads' });
    const code = stack.streaming.issueCode('youtube', 'UC_google_reads');
    const tokenRes = await fetch(`${stack.gifs.url}/token`, {
      method: 'POST',
      body: new URLSearchParams({ client_id: 'google-client', client_secret: 'google-secret', grant_type: 'authorization_code', code }),
    });
    const ytToken = ((await tokenRes.json()) as Body).access_token as string;
    const yt = youtube({ version: 'v3', rootUrl: `${stack.gifs.url}/` });
    const channels = await yt.channels.list({ part: ['snippet'], mine: true }, { headers: { Authorization: `Bearer ${ytToken}` } });
    expect(channels.data.items?.[0]?.snippet?.title).toBe('Google Reads');
  });
});

describe('streaming integrations', () => {
  it('when a streamer enables their Twitch account, then subscribers get its managed role by sync or by joining, and lose it (or the guild) after the grace period', async () => {
    const [streamer, fan, joiner, stranger] = [await newUser(stack), await newUser(stack), await newUser(stack), await newUser(stack)];
    const [streamerAccount, fanAccount, joinerAccount] = [accountId(), accountId(), accountId()];
    stack.streaming.addAccount('twitch', { id: streamerAccount, name: 'Streamer' });
    stack.streaming.addAccount('twitch', { id: fanAccount, name: 'Fan' });
    stack.streaming.addAccount('twitch', { id: joinerAccount, name: 'Joiner' });
    stack.streaming.subscribers.twitch.set(streamerAccount, [fanAccount, joinerAccount]);
    expect(await connect(streamer, 'twitch', streamerAccount)).toMatchObject({
      id: streamerAccount,
      type: 'twitch',
      name: 'Streamer',
      revoked: false,
    });
    await connect(fan, 'twitch', fanAccount);
    await connect(joiner, 'twitch', joinerAccount);
    const guildId = await newGuild(stack, streamer);
    await stack.guildsGrpc.addMember({ guildId, userId: fan.userId });

    const created = await api(stack, streamer, 'POST', `/guilds/${guildId}/integrations`, { type: 'streaming_a', id: streamerAccount });
    expect(created.status).toBe(204);
    const [integration] = (await api(stack, streamer, 'GET', `/guilds/${guildId}/integrations`)).body as Body[];
    expect(integration).toMatchObject({
      type: 'twitch',
      name: 'Streamer',
      account: { id: streamerAccount, name: 'Streamer' },
      syncing: false,
      role_id: expect.stringMatching(/^\d+$/),
      enable_emoticons: false,
      expire_behavior: 0,
      expire_grace_period: 1,
      subscriber_count: 0,
      revoked: false,
      user: expect.objectContaining({ id: streamer.userId }),
    });
    const roleId = integration.role_id as string;
    const guild = await stack.guildsGrpc.getGuild({ guildId });
    expect(guild.guild!.roles.find((r) => r.id === roleId)).toMatchObject({
      managed: true,
      name: 'Streamer Subscriber',
      integrationId: integration.id,
    });

    await synced(streamer, guildId, integration.id);
    expect(await rolesOf(guildId, fan.userId)).toContain(roleId);
    expect((await api(stack, streamer, 'GET', `/guilds/${guildId}/integrations`)).body[0]).toMatchObject({ subscriber_count: 2 });

    expect((await api(stack, stranger, 'POST', `/integrations/${integration.id}/join`)).body.code).toBe(50001);
    expect((await api(stack, joiner, 'POST', `/integrations/${integration.id}/join`)).status).toBe(204);
    expect(await rolesOf(guildId, joiner.userId)).toContain(roleId);

    // The fan stops subscribing: the role stays through the grace period, then goes.
    stack.streaming.subscribers.twitch.set(streamerAccount, [joinerAccount]);
    await synced(streamer, guildId, integration.id);
    expect(await rolesOf(guildId, fan.userId)).toContain(roleId);
    await lapseBy(integration.id, fanAccount, 2);
    await synced(streamer, guildId, integration.id);
    expect(await rolesOf(guildId, fan.userId)).not.toContain(roleId);
    expect(await rolesOf(guildId, fan.userId)).toBeDefined();

    // Kick on expiry, three days' grace: the joiner stops and, four days on, is removed.
    const modified = await api(stack, streamer, 'PATCH', `/guilds/${guildId}/integrations/${integration.id}`, {
      expire_behavior: 1,
      expire_grace_period: 3,
      enable_emoticons: true,
    });
    expect(modified.status).toBe(204);
    stack.streaming.subscribers.twitch.set(streamerAccount, []);
    await synced(streamer, guildId, integration.id);
    await lapseBy(integration.id, joinerAccount, 2);
    await synced(streamer, guildId, integration.id);
    expect(await rolesOf(guildId, joiner.userId)).toContain(roleId);
    await lapseBy(integration.id, joinerAccount, 4);
    await synced(streamer, guildId, integration.id);
    expect(await rolesOf(guildId, joiner.userId)).toBeUndefined();

    const updates = await publishedEvents(stack, 'INTEGRATION_UPDATE', (e) => (e.data as Body).id === integration.id);
    expect(updates.length).toBeGreaterThanOrEqual(6);
    expect(updates.at(-1)!.data).toMatchObject({ expire_behavior: 1, expire_grace_period: 3, enable_emoticons: true, subscriber_count: 0 });
    expect(await publishedEvents(stack, 'INTEGRATION_CREATE', (e) => (e.data as Body).id === integration.id)).toHaveLength(1);

    // Deleting it deletes its managed role.
    expect((await api(stack, streamer, 'DELETE', `/guilds/${guildId}/integrations/${integration.id}`)).status).toBe(204);
    expect((await stack.guildsGrpc.getGuild({ guildId })).guild!.roles.some((r) => r.id === roleId)).toBe(false);
  });

  it('when a Twitch integration syncs emoticons, then the broadcaster’s subscriber emotes are the guild’s managed emojis for its role, and a socket hears each GUILD_EMOJIS_UPDATE', async () => {
    const streamer = await newUser(stack);
    const account = accountId();
    stack.streaming.addAccount('twitch', { id: account, name: 'Emoter' });
    stack.streaming.emotes.set(account, [
      { id: `emotesv2_${account}_a`, name: 'emoterWave', tier: '1000', emote_type: 'subscriptions', format: ['static'] },
      { id: `emotesv2_${account}_b`, name: 'emoterParty', tier: '2000', emote_type: 'subscriptions', format: ['static', 'animated'] },
      // Follower and Bits emotes are not subscriber emotes: never synced.
      { id: `emotesv2_${account}_c`, name: 'emoterHi', tier: '', emote_type: 'follower', format: ['static'] },
      { id: `emotesv2_${account}_d`, name: 'emoterBits', tier: '', emote_type: 'bitstier', format: ['static'] },
    ]);
    await connect(streamer, 'twitch', account);
    const guildId = await newGuild(stack, streamer);
    const { client } = await GatewayClient.ready(`ws://127.0.0.1:${realtime.httpPort}/gateway`, streamer.token);
    const emojisUpdate = () =>
      client.next((f: ServerFrame) => f.t === 'GUILD_EMOJIS_UPDATE' && (f.d as Body).guild_id === guildId, 15_000).then((f) => f.d as Body);
    try {
      expect((await api(stack, streamer, 'POST', `/guilds/${guildId}/integrations`, { type: 'twitch', id: account })).status).toBe(204);
      const [integration] = (await api(stack, streamer, 'GET', `/guilds/${guildId}/integrations`)).body as Body[];
      const roleId = integration.role_id as string;
      // Off (the default): a sync makes no emojis.
      await synced(streamer, guildId, integration.id);
      expect((await stack.guildsGrpc.getGuild({ guildId, withEmojis: true })).guild!.emojis).toEqual([]);

      const on = await api(stack, streamer, 'PATCH', `/guilds/${guildId}/integrations/${integration.id}`, { enable_emoticons: true });
      expect(on.status).toBe(204);
      const first = await emojisUpdate();
      const emoji = (name: string, animated: boolean) => ({
        id: expect.stringMatching(/^\d+$/),
        name,
        roles: [roleId],
        require_colons: true,
        managed: true,
        animated,
        available: true,
      });
      expect(first.emojis).toEqual(expect.arrayContaining([emoji('emoterWave', false), emoji('emoterParty', true)]));
      expect(first.emojis).toHaveLength(2);
      // The guild object carries them: over the API and in a new socket's READY / GUILD_CREATE.
      const guild = await api(stack, streamer, 'GET', `/guilds/${guildId}`);
      expect(guild.body.emojis).toEqual(first.emojis);
      // Over gRPC only when asked: other services' guild lookups do without them.
      expect((await stack.guildsGrpc.getGuild({ guildId, withEmojis: true })).guild!.emojis).toHaveLength(2);
      expect((await stack.guildsGrpc.getGuild({ guildId })).guild!.emojis).toEqual([]);
      const again = await GatewayClient.ready(`ws://127.0.0.1:${realtime.httpPort}/gateway`, streamer.token);
      const readyGuild = (again.ready.guilds as Body[]).find((g) => g.id === guildId);
      expect(readyGuild?.emojis).toEqual(first.emojis);
      again.client.close();

      // A renamed emote keeps its emoji id; a dropped one goes; a sync with nothing new says nothing.
      const waveId = (first.emojis as Body[]).find((e) => e.name === 'emoterWave')!.id;
      stack.streaming.emotes.set(account, [
        { id: `emotesv2_${account}_a`, name: 'emoterWaves', tier: '1000', emote_type: 'subscriptions', format: ['static'] },
      ]);
      await synced(streamer, guildId, integration.id);
      expect((await emojisUpdate()).emojis).toEqual([{ ...emoji('emoterWaves', false), id: waveId }]);
      await synced(streamer, guildId, integration.id);

      // Turned off: they go at once.
      const off = await api(stack, streamer, 'PATCH', `/guilds/${guildId}/integrations/${integration.id}`, { enable_emoticons: false });
      expect(off.status).toBe(204);
      expect(await emojisUpdate()).toEqual({ guild_id: guildId, emojis: [] });
      expect(client.frames.filter((f) => f.t === 'GUILD_EMOJIS_UPDATE')).toHaveLength(3);

      // On again, then the integration deleted: they go with it.
      await api(stack, streamer, 'PATCH', `/guilds/${guildId}/integrations/${integration.id}`, { enable_emoticons: true });
      expect((await emojisUpdate()).emojis).toHaveLength(1);
      expect((await api(stack, streamer, 'DELETE', `/guilds/${guildId}/integrations/${integration.id}`)).status).toBe(204);
      expect(await emojisUpdate()).toEqual({ guild_id: guildId, emojis: [] });
      expect((await stack.guildsGrpc.getGuild({ guildId, withEmojis: true })).guild!.emojis).toEqual([]);
    } finally {
      client.close();
    }
  });

  it('when guilds is asked to sync managed emojis wrongly, then its errors and nothing changes', async () => {
    const owner = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    const unknown = await stack.guildsGrpc.syncManagedEmojis({
      guildId: '1',
      integrationId: '2',
      emojis: [{ sourceId: 'x', name: 'x', animated: false, roleIds: [], imageUrl: '' }],
    });
    expect(unknown.errorCode).toBe(10004);
    await expect(stack.guildsGrpc.syncManagedEmojis({ guildId: 'abc', integrationId: '2', emojis: [] })).rejects.toThrow();
    // Names are the platform's (2–32 letters, digits, underscores); one emoji per source id.
    const synced = await stack.guildsGrpc.syncManagedEmojis({
      guildId,
      integrationId: '3',
      emojis: [
        { sourceId: 's1', name: 'a-b c!', animated: false, roleIds: [], imageUrl: '' },
        { sourceId: 's1', name: 'twice', animated: false, roleIds: [], imageUrl: '' },
        { sourceId: 's2', name: 'x'.repeat(40), animated: true, roleIds: [], imageUrl: '' },
        { sourceId: 's3', name: 'é!', animated: false, roleIds: [], imageUrl: '' },
      ],
    });
    expect(synced.errorCode).toBe(0);
    expect(synced.emojis.map((e) => e.name).sort()).toEqual(['__', 'abc', 'x'.repeat(32)]);
    expect((await stack.guildsGrpc.getGuild({ guildId, withEmojis: true })).guild!.emojis).toHaveLength(3);
    // A role id that is not one: refused, and the set stays.
    await expect(
      stack.guildsGrpc.syncManagedEmojis({
        guildId,
        integrationId: '3',
        emojis: [{ sourceId: 's1', name: 'ok', animated: false, roleIds: ['role'], imageUrl: '' }],
      }),
    ).rejects.toThrow();
    expect((await stack.guildsGrpc.getGuild({ guildId, withEmojis: true })).guild!.emojis).toHaveLength(3);
  });

  it('when a YouTube channel (streaming_b) is enabled and synced, then its channel members with a connection get the role', async () => {
    const [creator, member] = [await newUser(stack), await newUser(stack)];
    const channel = `UC_creator_${accountId()}`;
    const fanChannel = `UC_member_${accountId()}`;
    stack.streaming.addAccount('youtube', { id: channel, name: 'Creator' });
    stack.streaming.addAccount('youtube', { id: fanChannel, name: 'Member' });
    stack.streaming.subscribers.youtube.set(channel, [fanChannel]);
    await connect(creator, 'youtube', channel);
    await connect(member, 'youtube', fanChannel);
    const guildId = await newGuild(stack, creator);
    await stack.guildsGrpc.addMember({ guildId, userId: member.userId });
    expect((await api(stack, creator, 'POST', `/guilds/${guildId}/integrations`, { type: 'youtube', id: channel })).status).toBe(204);
    const [integration] = (await api(stack, creator, 'GET', `/guilds/${guildId}/integrations`)).body as Body[];
    expect(integration.type).toBe('youtube');
    expect(integration).not.toHaveProperty('enable_emoticons');
    const emoticons = await api(stack, creator, 'PATCH', `/guilds/${guildId}/integrations/${integration.id}`, { enable_emoticons: true });
    expect(emoticons.body.errors.enable_emoticons).toBeDefined();
    await synced(creator, guildId, integration.id);
    expect(await rolesOf(guildId, member.userId)).toContain(integration.role_id);
  });

  it('when a sync is requested, then it answers at once with syncing: true; a provider outage is retried by the worker until the sync lands', async () => {
    const streamer = await newUser(stack);
    const guildId = await newGuild(stack, streamer);
    const account = `7${Date.now() % 1_000_000_000}1`;
    stack.streaming.addAccount('twitch', { id: account, name: 'Retried' });
    await connect(streamer, 'twitch', account);
    expect((await api(stack, streamer, 'POST', `/guilds/${guildId}/integrations`, { type: 'twitch', id: account })).status).toBe(204);
    const [integration] = (await api(stack, streamer, 'GET', `/guilds/${guildId}/integrations`)).body as Body[];

    stack.streaming.outages = 1;
    const before = stack.streaming.requests.length;
    // Many requests while one waits: one job, and every answer says it is syncing.
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => api(stack, streamer, 'POST', `/guilds/${guildId}/integrations/${integration.id}/sync`)),
    );
    expect(answers.map((a) => a.status)).toEqual([204, 204, 204, 204]);
    const requested = await publishedEvents(
      stack,
      'INTEGRATION_UPDATE',
      (e) => (e.data as Body).id === integration.id && (e.data as Body).syncing,
    );
    expect(requested.length).toBeGreaterThanOrEqual(1);
    // The failed run is recorded with its backoff (one attempt), not run again at once.
    const deadline = Date.now() + 10_000;
    let attempts = 0;
    while (attempts === 0 && Date.now() < deadline) {
      const job = await stack.db
        .selectFrom('integration_sync_jobs')
        .select('attempts')
        .where('integration_id', '=', integration.id)
        .executeTakeFirst();
      attempts = job?.attempts ?? -1;
      if (attempts === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(attempts).toBe(1);
    await synced(streamer, guildId, integration.id);
    // The outage took the first call, and the worker's retry read the subscribers.
    const calls = stack.streaming.requests.slice(before).map((r) => r.path);
    expect(calls[0]).toBe('outage');
    expect(calls.slice(1)).toContain('subscriptions');
    const after = (await api(stack, streamer, 'GET', `/guilds/${guildId}/integrations`)).body[0];
    expect(after).toMatchObject({ syncing: false, revoked: false });
    expect(new Date(after.synced_at).getTime()).toBeGreaterThan(new Date(integration.synced_at).getTime());
  });

  it('when the access token expired, then the sync refreshes it (refresh_token grant) and lands; when the refresh is refused too, the integration is revoked', async () => {
    const streamer = await newUser(stack);
    const guildId = await newGuild(stack, streamer);
    const account = `8${Date.now() % 1_000_000_000}2`;
    stack.streaming.addAccount('twitch', { id: account, name: 'Refreshed' });
    await connect(streamer, 'twitch', account);
    expect((await api(stack, streamer, 'POST', `/guilds/${guildId}/integrations`, { type: 'twitch', id: account })).status).toBe(204);
    const [integration] = (await api(stack, streamer, 'GET', `/guilds/${guildId}/integrations`)).body as Body[];
    const sealedToken = async () =>
      (await stack.db.selectFrom('connections').select('access_token').where('account_id', '=', account).executeTakeFirstOrThrow())
        .access_token;
    const first = await sealedToken();

    // The provider ended the token early: refused, refreshed, asked again.
    stack.streaming.expireTokens(account);
    let before = stack.streaming.requests.length;
    await synced(streamer, guildId, integration.id);
    expect(stack.streaming.requests.slice(before).map((r) => r.path)).toEqual(['subscriptions', 'refresh', 'subscriptions']);
    expect((await api(stack, streamer, 'GET', `/guilds/${guildId}/integrations`)).body[0]).toMatchObject({ revoked: false });
    const second = await sealedToken();
    expect(second).not.toBe(first);

    // The stored expiry has passed: refreshed before the call.
    await stack.db
      .updateTable('connections')
      .set({ token_expires_at: new Date(Date.now() - 1000) })
      .where('account_id', '=', account)
      .execute();
    before = stack.streaming.requests.length;
    await synced(streamer, guildId, integration.id);
    expect(stack.streaming.requests.slice(before).map((r) => r.path)).toEqual(['refresh', 'subscriptions']);

    // Neither token works any more: the connection and the integration are revoked.
    stack.streaming.expireTokens(account, { refreshTokens: true });
    await synced(streamer, guildId, integration.id);
    expect((await api(stack, streamer, 'GET', `/guilds/${guildId}/integrations`)).body[0]).toMatchObject({ revoked: true, syncing: false });
    const connections = (await api(stack, streamer, 'GET', '/users/@me/connections')).body as Body[];
    expect(connections.find((c) => c.id === account)).toMatchObject({ revoked: true });
  });

  it('when the request is wrong, then the platform’s errors and nothing is enabled', async () => {
    const [owner, member] = [await newUser(stack), await newUser(stack)];
    const account = accountId();
    stack.streaming.addAccount('twitch', { id: account, name: 'Someone' });
    await connect(owner, 'twitch', account);
    const guildId = await newGuild(stack, owner);
    await stack.guildsGrpc.addMember({ guildId, userId: member.userId });
    const post = (user: StackUser, body: unknown) => api(stack, user, 'POST', `/guilds/${guildId}/integrations`, body);

    expect((await post(owner, { type: 'discord', id: account })).body.errors.type._errors[0].code).toBe('BASE_TYPE_CHOICES');
    expect((await post(owner, { type: 'guild_subscription', id: account })).body.errors.type).toBeDefined();
    expect((await post(owner, { type: 'nope', id: account })).status).toBe(400);
    expect((await post(owner, { type: 'twitch' })).body.errors.id._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    expect((await post(owner, { type: 'twitch', id: 'not-mine' })).body.code).toBe(10005);
    expect((await post(member, { type: 'twitch', id: account })).body.code).toBe(50013);
    expect((await api(stack, owner, 'POST', `/guilds/${guildId}/integrations/1/sync`)).body.code).toBe(10005);
    expect((await api(stack, owner, 'PATCH', `/guilds/${guildId}/integrations/1`, {})).body.code).toBe(10005);
    expect((await api(stack, owner, 'POST', '/integrations/1/join')).body.code).toBe(10005);
    expect((await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`)).body).toEqual([]);

    expect((await post(owner, { type: 'twitch', id: account })).status).toBe(204);
    const [integration] = (await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`)).body as Body[];
    const patch = (body: unknown) => api(stack, owner, 'PATCH', `/guilds/${guildId}/integrations/${integration.id}`, body);
    expect((await patch({ expire_grace_period: 2 })).body.errors.expire_grace_period._errors[0].code).toBe('BASE_TYPE_CHOICES');
    expect((await patch({ expire_behavior: 5 })).status).toBe(400);
    expect((await api(stack, member, 'PATCH', `/guilds/${guildId}/integrations/${integration.id}`, { expire_behavior: 1 })).body.code).toBe(
      50013,
    );
    // Enabling it twice is one integration.
    expect((await post(owner, { type: 'streaming_a', id: account })).status).toBe(204);
    expect((await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`)).body).toHaveLength(1);

    const badState = await api(stack, owner, 'POST', '/connections/twitch/callback', { code: 'x', state: 'AAAAAAAAAAAAAAAAAAAAAA' });
    expect(badState.body.errors.state).toBeDefined();
    const start = await api(stack, owner, 'GET', '/connections/twitch/authorize');
    const state = new URL(start.body.url as string).searchParams.get('state');
    expect((await api(stack, member, 'POST', '/connections/twitch/callback', { code: 'x', state })).body.errors.state).toBeDefined();
    expect((await api(stack, owner, 'GET', '/connections/myspace/authorize')).status).toBe(400);
  });
});
