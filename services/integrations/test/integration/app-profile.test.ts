import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../../../gateway/test/integration/harness.js';
import {
  api,
  authorizeInto,
  newApplication,
  newGuild,
  newUser,
  startIntegrationsStack,
  stopIntegrationsStack,
  type Body,
  type IntegrationsStack,
} from './harness.js';

/*
 * An application's icon (image data in, a hash out, the bytes served at the platform's CDN path)
 * and its role connection metadata, through the edge with real auth and guilds.
 */

let stack: IntegrationsStack;

beforeAll(async () => {
  stack = await startIntegrationsStack();
});
afterAll(() => stopIntegrationsStack(stack));

/** A real 1×1 PNG: signature, IHDR, one IDAT row, IEND (CRCs are not checked by readers of the signature). */
function png(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0, 255]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const record = (key: string, type = 1) => ({ type, key, name: `Name ${key}`, description: `What ${key} means` });

describe('application icons', () => {
  it('when the owner uploads an icon, then the application names its hash and anyone fetches the bytes at /app-icons/{id}/{hash}.png; null removes it', async () => {
    const owner = await newUser(stack);
    const app = await newApplication(stack, owner, 'Iconic');
    const image = png();
    const res = await api(stack, owner, 'PATCH', `/applications/${app.id}`, { icon: `data:image/png;base64,${image.toString('base64')}` });
    expect(res.status).toBe(200);
    expect(res.body.icon).toMatch(/^[0-9a-f]{32}$/);
    const served = await call<string>(stack.base, `/api/v9/app-icons/${app.id}/${res.body.icon}.png`);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toContain('image/png');
    const bytes = await fetch(`${stack.base}/api/v9/app-icons/${app.id}/${res.body.icon}.png`).then(async (r) =>
      Buffer.from(await r.arrayBuffer()),
    );
    expect(bytes.equals(image)).toBe(true);
    expect((await api(stack, owner, 'GET', `/applications/${app.id}`)).body.icon).toBe(res.body.icon);

    const removed = await api(stack, owner, 'PATCH', `/applications/${app.id}`, { icon: null });
    expect(removed.body.icon).toBeNull();
  });

  it('when the image is not one, the caller not the owner, or the icon unknown, then the platform’s errors', async () => {
    const owner = await newUser(stack);
    const stranger = await newUser(stack);
    const app = await newApplication(stack, owner, 'Plain');
    const notPng = await api(stack, owner, 'PATCH', `/applications/${app.id}`, {
      icon: `data:image/png;base64,${Buffer.from('hello, this is text').toString('base64')}`,
    });
    expect(notPng.body.errors.icon._errors[0].code).toBe('IMAGE_INVALID');
    const notData = await api(stack, owner, 'PATCH', `/applications/${app.id}`, { icon: 'https://example.com/x.png' });
    expect(notData.body.errors.icon._errors[0].code).toBe('IMAGE_INVALID');
    const theirs = await api(stack, stranger, 'PATCH', `/applications/${app.id}`, {
      icon: `data:image/png;base64,${png().toString('base64')}`,
    });
    expect(theirs.body.code).toBe(50001);
    expect((await call(stack.base, `/api/v9/app-icons/${app.id}/${'0'.repeat(32)}.png`)).status).toBe(404);
    expect((await call(stack.base, `/api/v9/app-icons/${app.id}/nope.png`)).status).toBe(404);
  });
});

describe('role connection metadata', () => {
  it('when the owner puts records, then they are read back, shown on integrations when asked, and the bot may read them too', async () => {
    const owner = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    const app = await newApplication(stack, owner, 'Linked Roles');
    expect((await api(stack, owner, 'GET', `/applications/${app.id}/role-connections/metadata`)).body).toEqual([]);
    const records = [
      record('level', 2),
      { ...record('verified', 7), name_localizations: { fr: 'Vérifié' }, description_localizations: { fr: 'Compte vérifié' } },
    ];
    const put = await api(stack, owner, 'PUT', `/applications/${app.id}/role-connections/metadata`, records);
    expect(put.status).toBe(200);
    expect(put.body).toEqual(records);
    expect((await api(stack, owner, 'GET', `/applications/${app.id}/role-connections/metadata`)).body).toEqual(records);

    await authorizeInto(stack, owner, app.id, guildId);
    const list = (await api(stack, owner, 'GET', `/guilds/${guildId}/integrations?include_role_connections_metadata=true`)).body as Body[];
    expect(list[0].role_connections_metadata).toEqual(records);

    const { token } = await stack.authGrpc.resetBotToken({ userId: app.bot.id });
    const asBot = await call<Body>(stack.base, `/api/v9/applications/${app.id}/role-connections/metadata`, {
      authorization: `Bot ${token}`,
    });
    expect(asBot.body).toEqual(records);
    // Replacing with none clears them.
    expect((await api(stack, owner, 'PUT', `/applications/${app.id}/role-connections/metadata`, [])).body).toEqual([]);
  });

  it('when records break the limits, or the caller is neither owner nor bot, then 50035 / 50001 / 10002 and nothing changes', async () => {
    const owner = await newUser(stack);
    const stranger = await newUser(stack);
    const app = await newApplication(stack, owner, 'Strict');
    const put = (body: unknown, who: Body = owner) => api(stack, who, 'PUT', `/applications/${app.id}/role-connections/metadata`, body);
    expect((await put(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => record(k)))).body.code).toBe(50035);
    expect((await put([record('Has Caps')])).body.errors['0'].key._errors[0].code).toBe('APPLICATION_ROLE_CONNECTION_METADATA_KEY_INVALID');
    expect((await put([record('x'.repeat(51))])).body.errors['0'].key).toBeDefined();
    expect((await put([record('ok', 9)])).body.errors['0'].type).toBeDefined();
    expect((await put([record('ok', 0)])).body.errors['0'].type).toBeDefined();
    expect((await put([{ ...record('ok'), name: '' }])).body.errors['0'].name).toBeDefined();
    expect((await put([{ ...record('ok'), description: 'd'.repeat(201) }])).body.errors['0'].description).toBeDefined();
    expect((await put([record('same'), record('same')])).body.errors['1'].key._errors[0].code).toBe('DUPLICATE_KEY');
    expect((await put({ not: 'an array' })).body.code).toBe(50035);
    expect((await put([record('mine')], stranger)).body.code).toBe(50001);
    expect((await api(stack, stranger, 'GET', `/applications/${app.id}/role-connections/metadata`)).body.code).toBe(50001);
    expect((await api(stack, owner, 'GET', '/applications/1/role-connections/metadata')).body.code).toBe(10002);
    expect((await api(stack, null, 'GET', `/applications/${app.id}/role-connections/metadata`)).status).toBe(401);
    expect((await api(stack, owner, 'GET', `/applications/${app.id}/role-connections/metadata`)).body).toEqual([]);
  });
});
