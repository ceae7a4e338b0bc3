import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { api } from './client.js';
import { people, person, type Person } from './social.fixtures.js';

type Body = Record<string, unknown>;

async function guildChannel(owner: Person): Promise<{ guildId: string; channelId: string }> {
  const guild = await api('POST', '/guilds', { token: owner.token, body: { name: 'targeted' } });
  const channel = await api('POST', `/guilds/${guild.json.id as string}/channels`, { token: owner.token, body: { name: 'door' } });
  return { guildId: guild.json.id as string, channelId: channel.json.id as string };
}

/** A multipart request through the edge, as a browser's FormData sends it. */
async function multipart(method: string, path: string, token: string, form: FormData) {
  const res = await fetch(`${inject('baseUrl')}${path}`, { method, headers: { authorization: token }, body: form });
  const text = await res.text();
  return {
    status: res.status,
    text,
    json: (text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined) as Body,
  };
}

const csvFile = (text: string) => new Blob([text], { type: 'text/csv' });

async function jobDone(owner: Person, code: string): Promise<Body> {
  for (let i = 0; i < 200; i++) {
    const job = await api('GET', `/invites/${code}/target-users/job-status`, { token: owner.token });
    expect(job.status).toBe(200);
    if (job.json.status !== 1) return job.json;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the job never finished');
}

describe('target users files', () => {
  it('when an invite is made with a file, then only the listed users see and accept it, and the file reads back', async () => {
    const [owner, listed, other] = await people(3);
    const { guildId, channelId } = await guildChannel(owner);
    const form = new FormData();
    form.set('max_uses', '10');
    form.set('target_users_file', csvFile(`user_id\n${listed.id}\n`), 'users.csv');
    const made = await multipart('POST', `/channels/${channelId}/invites`, owner.token, form);
    expect(made.status, made.text).toBe(200);
    expect(made.json).toMatchObject({ max_uses: 10, guild_id: guildId });
    const code = made.json.code as string;
    expect(await jobDone(owner, code)).toMatchObject({ status: 2, total_users: 1, processed_users: 1, error_message: null });
    expect((await api('GET', `/invites/${code}`, { token: other.token })).json.code).toBe(10006);
    expect((await api('POST', `/invites/${code}`, { token: other.token })).json.code).toBe(10006);
    expect((await api('GET', `/invites/${code}`, { token: listed.token })).status).toBe(200);
    expect((await api('POST', `/invites/${code}`, { token: listed.token })).status).toBe(200);
    const csv = await fetch(`${inject('baseUrl')}/invites/${code}/target-users`, { headers: { authorization: owner.token } });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(await csv.text()).toBe(`user_id\n${listed.id}\n`);
    const list = await api('GET', `/guilds/${guildId}/invites`, { token: owner.token });
    expect((list.json as unknown as Body[]).find((i) => i.code === code)).toMatchObject({ target_users_job_status: { status: 2 } });
    expect((await api('GET', `/invites/${code}/target-users`, { token: listed.token })).json.code).toBe(50013);
  });

  it('when the file is replaced, then the new users are the ones admitted', async () => {
    const [owner, first, second] = await people(3);
    const { channelId } = await guildChannel(owner);
    const form = new FormData();
    form.set('target_users_file', csvFile(`user_id\n${first.id}\n`), 'a.csv');
    const code = (await multipart('POST', `/channels/${channelId}/invites`, owner.token, form)).json.code as string;
    await jobDone(owner, code);
    const update = new FormData();
    update.set('target_users_file', csvFile(`user_id\r\n${second.id}\r\n`), 'b.csv');
    const put = await multipart('PUT', `/invites/${code}/target-users`, owner.token, update);
    expect(put.status).toBe(204);
    expect(await jobDone(owner, code)).toMatchObject({ status: 2, total_users: 1 });
    expect((await api('POST', `/invites/${code}`, { token: first.token })).json.code).toBe(10006);
    expect((await api('POST', `/invites/${code}`, { token: second.token })).status).toBe(200);
  });

  it('when rows are bad or users unknown, then the job fails with a message; a file without its header, none, or too large is refused', async () => {
    const owner = await person();
    const { channelId } = await guildChannel(owner);
    const bad = new FormData();
    bad.set('target_users_file', csvFile('user_id\nnot-an-id\n999999999999999999\n'), 'bad.csv');
    const code = (await multipart('POST', `/channels/${channelId}/invites`, owner.token, bad)).json.code as string;
    const job = await jobDone(owner, code);
    expect(job).toMatchObject({ status: 3, error_message: 'Invalid user IDs on lines: 2' });
    const unknown = new FormData();
    unknown.set('target_users_file', csvFile('user_id\n999999999999999999\n'), 'u.csv');
    expect((await multipart('PUT', `/invites/${code}/target-users`, owner.token, unknown)).status).toBe(204);
    expect(await jobDone(owner, code)).toMatchObject({ status: 3, error_message: 'Unknown users: 999999999999999999' });

    const headerless = new FormData();
    headerless.set('target_users_file', csvFile('123\n'), 'h.csv');
    const refused = await multipart('POST', `/channels/${channelId}/invites`, owner.token, headerless);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 50035, errors: { target_users_file: expect.anything() } });
    expect((await multipart('PUT', `/invites/${code}/target-users`, owner.token, new FormData())).json.code).toBe(50035);
    const huge = new FormData();
    huge.set('target_users_file', csvFile('user_id\n' + '123456789012345678\n'.repeat(500_000)), 'huge.csv');
    const tooBig = await multipart('PUT', `/invites/${code}/target-users`, owner.token, huge);
    expect(tooBig.status).toBe(413);
    expect(tooBig.json.code).toBe(40005);
    const plain = (await api('POST', `/channels/${channelId}/invites`, { token: owner.token, body: { unique: true } })).json.code as string;
    expect((await api('GET', `/invites/${plain}/target-users/job-status`, { token: owner.token })).json.code).toBe(10006);
  });
});
