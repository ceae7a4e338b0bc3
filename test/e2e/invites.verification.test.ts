import { describe, expect, it } from 'vitest';
import { api, uniqueName } from './client.js';
import { online, people, type Person } from './social.fixtures.js';

/** A guild with member verification on (a TERMS form) and a channel to invite to. */
async function gatedGuild(owner: Person): Promise<{ guildId: string; channelId: string }> {
  const guild = await api('POST', '/guilds', { token: owner.token, body: { name: 'gated' } });
  const guildId = guild.json.id as string;
  const gate = await api('PATCH', `/guilds/${guildId}/member-verification`, {
    token: owner.token,
    body: { enabled: true, form_fields: [{ field_type: 'TERMS', label: 'Rules', values: ['Be kind'], required: true }] },
  });
  expect(gate.status, JSON.stringify(gate.json)).toBe(200);
  const channel = await api('POST', `/guilds/${guildId}/channels`, { token: owner.token, body: { name: 'hall' } });
  return { guildId, channelId: channel.json.id as string };
}

async function inviteTo(owner: Person, channelId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await api('POST', `/channels/${channelId}/invites`, { token: owner.token, body });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.code as string;
}

describe('Accept Invite into a guild with member verification', () => {
  it('when a user accepts, then they join pending, the answer asks for the form and their socket gets GUILD_JOIN_REQUEST_CREATE', async () => {
    const [owner, joinerP] = await people(2);
    const { guildId, channelId } = await gatedGuild(owner);
    const code = await inviteTo(owner, channelId);
    const joiner = await online(joinerP);
    try {
      const accepted = await api('POST', `/invites/${code}`, { token: joiner.token, body: {} });
      expect(accepted.status).toBe(200);
      expect(accepted.json).toMatchObject({ code, new_member: true, show_verification_form: true, guild: { id: guildId } });
      const before = await joiner.ws.takeThrough((d) => d.t === 'GUILD_JOIN_REQUEST_CREATE');
      expect(before.map((d) => d.t)).toContain('GUILD_CREATE');
      const request = joiner.ws.dispatches().find((d) => d.t === 'GUILD_JOIN_REQUEST_CREATE')!;
      expect(request.d).toMatchObject({
        guild_id: guildId,
        status: 'STARTED',
        request: { user_id: joiner.id, application_status: 'STARTED' },
      });
      const member = await api('GET', `/guilds/${guildId}/members/${joiner.id}`, { token: owner.token });
      expect(member.json.pending).toBe(true);
      // Accepting again: still pending, still shown the form, no second use.
      const again = await api('POST', `/invites/${code}`, { token: joiner.token, body: {} });
      expect(again.json).toMatchObject({ new_member: false, show_verification_form: true });
    } finally {
      joiner.ws.close();
    }
  });

  it('when a pending member submits the form, then until then other services refuse them, and after it they take part (GUILD_JOIN_REQUEST_UPDATE on their socket)', async () => {
    const [owner, joinerP] = await people(2);
    const { guildId, channelId } = await gatedGuild(owner);
    const joiner = await online(joinerP);
    try {
      await api('POST', `/invites/${await inviteTo(owner, channelId)}`, { token: joiner.token, body: {} });
      await joiner.ws.takeThrough((d) => d.t === 'GUILD_JOIN_REQUEST_CREATE');
      // Pending: invites asks guilds' permission check, which leaves them VIEW_CHANNEL and READ_MESSAGE_HISTORY only.
      const early = await api('POST', `/channels/${channelId}/invites`, { token: joiner.token, body: {} });
      expect(early.status).toBe(403);
      expect(early.json).toMatchObject({ code: 50013 });
      const path = `/guilds/${guildId}/requests/@me`;
      const unanswered = await api('PUT', path, {
        token: joiner.token,
        body: { form_fields: [{ field_type: 'TERMS', label: 'Rules', values: ['Be kind'], required: true, response: false }] },
      });
      expect(unanswered.json).toMatchObject({ code: 50035, errors: { form_fields: { 0: { response: expect.anything() } } } });
      const submitted = await api('PUT', path, {
        token: joiner.token,
        body: { form_fields: [{ field_type: 'TERMS', label: 'Rules', values: ['Be kind'], required: true, response: true }] },
      });
      expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
      expect(submitted.json).toMatchObject({ guild_id: guildId, user_id: joiner.id, application_status: 'APPROVED' });
      await joiner.ws.takeThrough((d) => d.t === 'GUILD_JOIN_REQUEST_UPDATE');
      const update = joiner.ws.dispatches().find((d) => d.t === 'GUILD_JOIN_REQUEST_UPDATE')!;
      expect(update.d).toMatchObject({ guild_id: guildId, status: 'APPROVED', request: { id: submitted.json.id } });
      expect((await api('GET', `/guilds/${guildId}/members/${joiner.id}`, { token: owner.token })).json.pending).toBe(false);
      const later = await api('POST', `/channels/${channelId}/invites`, { token: joiner.token, body: {} });
      expect(later.status, JSON.stringify(later.json)).toBe(200);
    } finally {
      joiner.ws.close();
    }
  });

  it('when the invite has IS_APPLICATION_BYPASS, then the member is not pending and no form is shown', async () => {
    const [owner, joiner] = await people(2);
    const { guildId, channelId } = await gatedGuild(owner);
    const code = await inviteTo(owner, channelId, { flags: 1 << 3 });
    const accepted = await api('POST', `/invites/${code}`, { token: joiner.token, body: {} });
    expect(accepted.json).toMatchObject({ new_member: true, show_verification_form: false });
    expect((await api('GET', `/guilds/${guildId}/members/${joiner.id}`, { token: owner.token })).json.pending).toBe(false);
  });

  it('when the gate is off, then joiners are not pending and show_verification_form is false', async () => {
    const [owner, joiner] = await people(2);
    const { guildId, channelId } = await gatedGuild(owner);
    expect((await api('PATCH', `/guilds/${guildId}/member-verification`, { token: owner.token, body: { enabled: false } })).status).toBe(
      200,
    );
    const accepted = await api('POST', `/invites/${await inviteTo(owner, channelId)}`, { token: joiner.token, body: {} });
    expect(accepted.json).toMatchObject({ new_member: true, show_verification_form: false });
    expect((await api('GET', `/guilds/${guildId}/members/${joiner.id}`, { token: owner.token })).json.pending).toBe(false);
  });

  it('when a member without MANAGE_GUILD switches the gate, or the body is bad, then 50013 and 50035 through the gateway', async () => {
    const [owner, member] = await people(2);
    const { guildId, channelId } = await gatedGuild(owner);
    await api('POST', `/invites/${await inviteTo(owner, channelId, { flags: 1 << 3 })}`, { token: member.token, body: {} });
    const path = `/guilds/${guildId}/member-verification`;
    expect((await api('PATCH', path, { token: member.token, body: { enabled: false } })).json).toMatchObject({ code: 50013 });
    expect((await api('PATCH', path, { token: owner.token, body: { description: 'x'.repeat(301) } })).json).toMatchObject({
      code: 50035,
      errors: { description: expect.anything() },
    });
    expect((await api('GET', path, { token: member.token })).json.form_fields).toHaveLength(1);
  });

  it('when an account registers with an invite to a gated guild, then the registration answers show_verification_form true', async () => {
    const [owner] = await people(1);
    const { guildId, channelId } = await gatedGuild(owner);
    const code = await inviteTo(owner, channelId);
    const username = uniqueName();
    const body = {
      username,
      email: `${username}@example.com`,
      password: 'correct horse battery',
      date_of_birth: '1990-05-17',
      consent: true,
    };
    const res = await api('POST', '/auth/register', { body: { ...body, invite: code } });
    expect(res.status).toBe(201);
    expect(res.json.show_verification_form).toBe(true);
    const me = await api('GET', '/users/@me', { token: res.json.token as string });
    expect((await api('GET', `/guilds/${guildId}/members/${me.json.id as string}`, { token: owner.token })).json.pending).toBe(true);
    const plain = uniqueName();
    const without = await api('POST', '/auth/register', { body: { ...body, username: plain, email: `${plain}@example.com` } });
    expect(without.json.show_verification_form).toBe(false);
  });
});
