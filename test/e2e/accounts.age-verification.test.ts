import { afterAll, describe, expect, inject, it } from 'vitest';
import { createClient } from '@kith/platform';
import { AuthService, StandingAction } from '@kith/proto/auth/v1/auth';
import { api, newUser } from './client.js';
import { portOffset } from './social.fixtures.js';

/**
 * A suspended user's age verification through `npm start`'s system: auth goes to the local k-ID
 * stand-in it runs (services/auth/src/dev), whose page the user completes in a browser.
 */

const auth = createClient(AuthService, `127.0.0.1:${50051 + portOffset()}`, 5000);
afterAll(() => auth.close());

/** The user's browser on the verification page: opens it, picks an outcome, submits its form. */
async function completeInBrowser(pageUrl: string, outcome: 'PASS' | 'FAIL'): Promise<void> {
  const page = await fetch(pageUrl);
  expect(page.status).toBe(200);
  const markup = await page.text();
  const id = /name="id" value="([^"]+)"/.exec(markup)?.[1];
  const action = /<form method="post" action="([^"]+)"/.exec(markup)?.[1];
  expect(id && action).toBeTruthy();
  const done = await fetch(new URL(action!, pageUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ id: id!, outcome }).toString(),
  });
  expect(done.status).toBe(200);
}

async function suspended(): Promise<string> {
  const user = await newUser();
  const me = await api('GET', '/users/@me', { token: user.token });
  await auth.setAccountStanding({ userId: me.json.id as string, action: StandingAction.SUSPEND, reason: 'Underage' });
  const login = await api('POST', '/auth/login', { body: { login: user.email, password: user.password } });
  expect(login.status).toBe(403);
  return login.json.suspended_user_token as string;
}

const hub = (path: string, token: string) =>
  api('POST', `/safety-hub/suspended/${path}`, { body: { token, from_classification_id: null } });

describe('age verification under npm start', () => {
  it('when a suspended user requests verification, then the local k-ID stand-in’s page opens, and passing it there makes check succeed', async () => {
    const token = await suspended();
    const started = await hub('request-verification', token);
    expect(started.status, JSON.stringify(started.json)).toBe(200);
    const pageUrl = started.json.verification_webview_url as string;
    expect(started.json.verification_vendor_name).toBe('K_ID');
    expect(new URL(pageUrl).port).toBe(String(8114 + inject('portOffset')));

    expect((await hub('check-verification', token)).json).toEqual({ success: false });
    await completeInBrowser(pageUrl, 'PASS');
    expect((await hub('check-verification', token)).json).toEqual({ success: true });
  });

  it('when the user fails it on the page, then check does not succeed', async () => {
    const token = await suspended();
    const started = await hub('request-verification', token);
    await completeInBrowser(started.json.verification_webview_url as string, 'FAIL');
    expect((await hub('check-verification', token)).json).toEqual({ success: false });
  });
});
