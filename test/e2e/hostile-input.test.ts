import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { api, newUser } from './client.js';

/**
 * Every route the services declare (read from their route files, so a new route is covered the day
 * it is written), called through the edge with hostile input: ids that overflow or hold a NUL,
 * bodies of the wrong shape, broken JSON, text PostgreSQL cannot store, odd query strings. Nothing
 * a client sends may be a 500: each answer is a 2xx/3xx or a 4xx in the platform's error shape.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

function declaredRoutes(): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  for (const service of ['auth', 'social', 'guilds', 'integrations']) {
    const dir = `${root}services/${service}/src/http`;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.routes.ts'))) {
      const source = readFileSync(`${dir}/${file}`, 'utf8');
      const base = /const base = '([^']+)'/.exec(source)?.[1];
      for (const match of source.matchAll(/app\.(get|post|put|patch|delete)\(\s*[`']([^`']+)[`']/g)) {
        const path = base ? match[2]!.replace('${base}', base) : match[2]!;
        if (!path.includes('${')) routes.push({ method: match[1]!.toUpperCase(), path });
      }
    }
  }
  return routes;
}

const BODIES: { body?: unknown; raw?: string }[] = [
  { body: {} },
  { body: [] },
  { body: 'text' },
  { body: null },
  { body: { id: '99999999999999999999999', position: 1e308, name: { nested: true }, type: 'a', user_ids: Array(300).fill('1') } },
  {
    body: {
      id: '9223372036854775808',
      user_id: '18446744073709551615',
      user_ids: ['9223372036854775808'],
      channel_id: '18446744073709551615',
    },
  },
  { raw: '{"name": "a\\u0000b", "nickname": "\\ud800", "username": "x\\u0000"}' },
  { raw: '{"broken":' },
  // ~10 KB nested 5,000 deep: a stack overflow in whatever walks it, unless the parser refuses it.
  { raw: '{"name":' + '[{"a":'.repeat(2500) + '1' + '}]'.repeat(2500) + '}' },
];
const QUERIES = [
  '',
  '?limit=1e400&before=-1&after=9223372036854775808&around=18446744073709551615&with_counts=maybe',
  '?query=a%00b&limit=99999999999999999999',
];

/** Destructive routes end the caller's session; the caller is replaced when that happens. */
const ENDS_SESSION = /logout|\/disable$|\/delete$/;

describe('hostile input on every route', () => {
  const routes = declaredRoutes();

  it('finds the routes of auth, social and guilds', () => {
    expect(routes.length).toBeGreaterThan(80);
  });

  it('when any route gets ids that overflow or hold NUL, bodies of any shape, broken JSON or odd queries, then never a 5xx and every 4xx is the platform error body', async () => {
    let user = await newUser();
    const guild = (await api('POST', '/guilds', { token: user.token, body: { name: 'hostile input' } })).json;
    const failures: string[] = [];
    let mayBeRevoked = false;
    for (const { method, path } of routes) {
      const ids = [
        path.replace(/:[a-z_]+/g, String(guild.id)),
        path.replace(/:[a-z_]+/g, '18446744073709551616'),
        // Inside the unsigned 64-bit range but past the signed one PostgreSQL's bigint holds.
        path.replace(/:[a-z_]+/g, '9223372036854775808'),
        path.replace(/:[a-z_]+/g, '%00'),
      ];
      for (const concrete of ids)
        for (const query of QUERIES)
          for (const input of method === 'GET' || method === 'DELETE' ? [{}] : BODIES) {
            if (mayBeRevoked && (await api('GET', '/users/@me', { token: user.token })).status === 401) user = await newUser();
            mayBeRevoked = ENDS_SESSION.test(path);
            const res = await api(method, concrete + query, { token: user.token, ...input });
            const label = `${method} ${concrete}${query} ${input.raw ?? JSON.stringify(input.body)?.slice(0, 40)}`;
            if (res.status >= 500) failures.push(`${res.status} ${label}`);
            else if (res.status >= 400 && (typeof res.json?.code !== 'number' || typeof res.json?.message !== 'string'))
              failures.push(`${res.status} without the error body: ${label}`);
          }
    }
    expect(failures).toEqual([]);
  }, 480_000);
});
