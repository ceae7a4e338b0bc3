import { describe, expect, it } from 'vitest';
import { renderGithub } from './github.format.js';
import { fromSlack, slackLinks } from './slack.format.js';

const sender = { login: 'octocat', html_url: 'https://github.com/octocat', avatar_url: 'https://avatars.example/o.png' };
const repository = { name: 'hello', full_name: 'octocat/hello', html_url: 'https://github.com/octocat/hello' };

describe('renderGithub', () => {
  it('when a push has commits, then one line per commit under a title naming branch and count', () => {
    const embed = renderGithub('push', {
      ref: 'refs/heads/main',
      compare: 'https://github.com/octocat/hello/compare/a...b',
      commits: [{ id: 'abcdef1234', message: 'Fix it\n\nbody', url: 'https://github.com/c/1', author: { username: 'octocat' } }],
      repository,
      sender,
    });
    expect(embed).toMatchObject({
      title: '[hello:main] 1 new commit',
      url: 'https://github.com/octocat/hello/compare/a...b',
      description: '[`abcdef1`](https://github.com/c/1) Fix it - octocat',
      author: { name: 'octocat', icon_url: sender.avatar_url },
    });
  });

  it('when an event or action is not shown, then nothing', () => {
    expect(renderGithub('push', { ref: 'refs/heads/x', commits: [], repository, sender })).toBeUndefined();
    expect(renderGithub('issues', { action: 'labeled', issue: { number: 1 }, repository, sender })).toBeUndefined();
    expect(renderGithub('ping', { zen: 'x' })).toBeUndefined();
    expect(renderGithub('star', { action: 'created', repository, sender })).toBeUndefined();
  });

  it('when an issue opens or a pull request merges, then the platform’s titles', () => {
    expect(
      renderGithub('issues', {
        action: 'opened',
        issue: { number: 7, title: 'Bug', html_url: 'https://x/7', body: 'b' },
        repository,
        sender,
      }),
    ).toMatchObject({
      title: '[hello] Issue opened: #7 Bug',
      description: 'b',
    });
    expect(
      renderGithub('pull_request', { action: 'closed', pull_request: { number: 8, title: 'Feat', merged: true }, repository, sender })
        ?.title,
    ).toBe('[hello] Pull request merged: #8 Feat');
  });
});

describe('fromSlack', () => {
  it('when text, overrides and attachments come, then content, username, avatar and embeds; ignored keys vanish', () => {
    expect(
      fromSlack({
        text: 'see <https://x.example|the run>',
        username: 'bot',
        icon_url: 'https://x.example/i.png',
        attachments: [
          {
            color: 'danger',
            pretext: 'Heads up',
            title: 'Down',
            text: 'db',
            fields: [{ title: 'Region', value: 'eu', short: true }],
            ts: 1700000000,
          },
        ],
      }),
    ).toEqual({
      content: 'see [the run](https://x.example)\nHeads up',
      username: 'bot',
      avatar_url: 'https://x.example/i.png',
      embeds: [
        {
          title: 'Down',
          description: 'db',
          color: 0xa30200,
          fields: [{ name: 'Region', value: 'eu', inline: true }],
          timestamp: '2023-11-14T22:13:20.000Z',
        },
      ],
    });
  });

  it('when links are bare, then they stay as URLs', () => {
    expect(slackLinks('<https://a.example>')).toBe('https://a.example');
  });
});
