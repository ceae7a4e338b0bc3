import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(`${root}README.md`, 'utf8');

describe('README.md', () => {
  it('when the code’s settings or ports change, then the README’s generated tables are regenerated with them', () => {
    const run = spawnSync(process.execPath, ['scripts/readme-tables.mjs', '--check'], { cwd: root, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 60_000);

  it('when a newcomer opens it, then the two commands come first, exactly', () => {
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.split('#')[0]!.trim());
    expect(blocks.slice(0, 2)).toEqual(['npm ci && npm start', 'npm ci && npm test']);
    expect(readme.indexOf('```sh')).toBeLessThan(readme.indexOf('\n## '));
  });

  it('when it links, then only to files inside the repository that exist', () => {
    const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    for (const link of links.filter((l) => !/^https?:\/\/(localhost|127\.0\.0\.1)/.test(l))) {
      expect(link, link).not.toMatch(/^(https?:|\.\.\/|\/)/);
      expect(() => readFileSync(`${root}${link.split('#')[0]}`), link).not.toThrow();
    }
  });

  it('when a setting is marked required in production, then the table says so with the reason', () => {
    expect(readme).toMatch(
      /\| `MFA_ELEVATION_KEY` \| auth \| unset \| .*\*\*Required when `NODE_ENV=production`\*\*: every replica must check/,
    );
  });
});
