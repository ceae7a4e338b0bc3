import type { EmbedInput } from '../message.input.js';

/**
 * The code host's deliveries (`X-GitHub-Event` + its payload) as the platform renders them: one
 * embed per event it supports, nothing for the rest (an event or action it filters out).
 */

/** The events the platform takes (the spec's list); others are answered and dropped. */
export const GITHUB_EVENTS = [
  'commit_comment',
  'create',
  'delete',
  'fork',
  'issue_comment',
  'issues',
  'member',
  'public',
  'pull_request',
  'pull_request_review',
  'pull_request_review_comment',
  'push',
  'release',
  'watch',
  'check_run',
  'check_suite',
  'discussion',
  'discussion_comment',
] as const;

// The payloads are the code host's; only what the embeds show is read, each value checked as read.
type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const url = (v: unknown): string | undefined => {
  const s = str(v);
  return /^https?:\/\//.test(s) ? s.slice(0, 2048) : undefined;
};

const COLORS = { push: 0x7289da, open: 0xeb6420, pullOpen: 0x009800, closed: 0x000000, comment: 0xe68d60, neutral: 0x24292f } as const;

/** Text cut to `max` characters with an ellipsis, as the platform shortens bodies. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 3).join('')}...`;
}

interface Ctx {
  p: Json;
  repo: Json;
  sender: Json;
  /** `[name]`, as titles start. */
  tag: string;
}

function embed(ctx: Ctx, title: string, link: unknown, color: number, description?: string): EmbedInput {
  const e: EmbedInput = {
    title: clip(title, 256),
    color,
    author: {
      name: clip(str(ctx.sender.login) || 'unknown', 256),
      ...(url(ctx.sender.html_url) ? { url: url(ctx.sender.html_url) } : {}),
      ...(url(ctx.sender.avatar_url) ? { icon_url: url(ctx.sender.avatar_url) } : {}),
    },
  };
  const href = url(link);
  if (href) e.url = href;
  if (description) e.description = clip(description, 500);
  return e;
}

const branchOf = (ref: string): string => ref.replace(/^refs\/(heads|tags)\//, '');

function push(ctx: Ctx): EmbedInput | undefined {
  const commits = Array.isArray(ctx.p.commits) ? ctx.p.commits.map(obj) : [];
  const branch = branchOf(str(ctx.p.ref));
  if (ctx.p.deleted === true) return undefined;
  if (ctx.p.forced === true)
    return embed(
      ctx,
      `[${str(ctx.repo.name)}] Branch ${branch} was force-pushed to \`${str(obj(ctx.p.head_commit).id).slice(0, 7)}\``,
      ctx.p.compare,
      COLORS.push,
    );
  // A push without commits (a new branch at an existing commit, a tag) is not shown.
  if (commits.length === 0) return undefined;
  const lines = commits.slice(0, 5).map((c) => {
    const message = clip(str(c.message).split('\n')[0] ?? '', 50);
    const author = str(obj(c.author).username) || str(obj(c.author).name);
    return `[\`${str(c.id).slice(0, 7)}\`](${url(c.url) ?? ''}) ${message} - ${author}`;
  });
  const n = commits.length;
  return embed(ctx, `[${str(ctx.repo.name)}:${branch}] ${n} new commit${n === 1 ? '' : 's'}`, ctx.p.compare, COLORS.push, lines.join('\n'));
}

function issueLike(ctx: Ctx, kind: 'Issue' | 'Pull request', item: Json, action: string): EmbedInput | undefined {
  const number = str(item.number);
  const title = str(item.title);
  const opened = kind === 'Issue' ? COLORS.open : COLORS.pullOpen;
  if (action === 'opened') return embed(ctx, `${ctx.tag} ${kind} opened: #${number} ${title}`, item.html_url, opened, str(item.body));
  if (action === 'closed') {
    const merged = kind === 'Pull request' && item.merged === true;
    return embed(ctx, `${ctx.tag} ${kind} ${merged ? 'merged' : 'closed'}: #${number} ${title}`, item.html_url, COLORS.closed);
  }
  if (action === 'reopened') return embed(ctx, `${ctx.tag} ${kind} reopened: #${number} ${title}`, item.html_url, opened);
  return undefined;
}

function comment(ctx: Ctx, title: string, c: Json): EmbedInput {
  return embed(ctx, title, c.html_url, COLORS.comment, str(c.body));
}

const HANDLERS: Record<(typeof GITHUB_EVENTS)[number], (ctx: Ctx, action: string) => EmbedInput | undefined> = {
  push,
  issues: (ctx, action) => issueLike(ctx, 'Issue', obj(ctx.p.issue), action),
  pull_request: (ctx, action) => issueLike(ctx, 'Pull request', obj(ctx.p.pull_request), action),
  issue_comment: (ctx, action) => {
    if (action !== 'created') return undefined;
    const issue = obj(ctx.p.issue);
    const kind = issue.pull_request ? 'pull request' : 'issue';
    return comment(ctx, `${ctx.tag} New comment on ${kind} #${str(issue.number)}: ${str(issue.title)}`, obj(ctx.p.comment));
  },
  commit_comment: (ctx, action) => {
    if (action !== 'created') return undefined;
    const c = obj(ctx.p.comment);
    return comment(ctx, `${ctx.tag} New comment on commit \`${str(c.commit_id).slice(0, 7)}\``, c);
  },
  pull_request_review: (ctx, action) => {
    if (action !== 'submitted') return undefined;
    const pr = obj(ctx.p.pull_request);
    const review = obj(ctx.p.review);
    const state = str(review.state).toLowerCase().replace('_', ' ');
    return embed(
      ctx,
      `${ctx.tag} Pull request review ${state || 'submitted'}: #${str(pr.number)} ${str(pr.title)}`,
      review.html_url,
      COLORS.neutral,
      str(review.body),
    );
  },
  pull_request_review_comment: (ctx, action) => {
    if (action !== 'created') return undefined;
    const pr = obj(ctx.p.pull_request);
    return comment(ctx, `${ctx.tag} New review comment on pull request #${str(pr.number)}: ${str(pr.title)}`, obj(ctx.p.comment));
  },
  create: (ctx) =>
    embed(ctx, `${ctx.tag} New ${str(ctx.p.ref_type) || 'branch'} created: ${str(ctx.p.ref)}`, ctx.repo.html_url, COLORS.neutral),
  delete: (ctx) =>
    embed(ctx, `${ctx.tag} ${capitalize(str(ctx.p.ref_type) || 'branch')} deleted: ${str(ctx.p.ref)}`, ctx.repo.html_url, COLORS.neutral),
  fork: (ctx) => {
    const forkee = obj(ctx.p.forkee);
    return embed(ctx, `${ctx.tag} Fork created: ${str(forkee.full_name)}`, forkee.html_url, COLORS.neutral);
  },
  member: (ctx, action) => {
    if (action !== 'added') return undefined;
    const member = obj(ctx.p.member);
    return embed(ctx, `${ctx.tag} New collaborator added: ${str(member.login)}`, member.html_url, COLORS.neutral);
  },
  public: (ctx) => embed(ctx, `${ctx.tag} Now open sourced!`, ctx.repo.html_url, COLORS.neutral),
  release: (ctx, action) => {
    if (action !== 'published') return undefined;
    const release = obj(ctx.p.release);
    return embed(ctx, `${ctx.tag} New release published: ${str(release.tag_name)}`, release.html_url, COLORS.neutral, str(release.body));
  },
  watch: (ctx, action) => (action === 'started' ? embed(ctx, `${ctx.tag} New star added`, ctx.repo.html_url, COLORS.neutral) : undefined),
  check_run: (ctx, action) => {
    if (action !== 'completed') return undefined;
    const run = obj(ctx.p.check_run);
    const branch = str(obj(run.check_suite).head_branch);
    return embed(
      ctx,
      `${ctx.tag} ${str(run.name)} ${str(run.conclusion)}${branch ? ` on ${branch}` : ''}`,
      run.html_url,
      checkColor(run.conclusion),
    );
  },
  check_suite: (ctx, action) => {
    if (action !== 'completed') return undefined;
    const suite = obj(ctx.p.check_suite);
    const app = str(obj(suite.app).name) || 'Check suite';
    const branch = str(suite.head_branch);
    return embed(
      ctx,
      `${ctx.tag} ${app} checks ${str(suite.conclusion)}${branch ? ` on ${branch}` : ''}`,
      ctx.repo.html_url,
      checkColor(suite.conclusion),
    );
  },
  discussion: (ctx, action) => {
    const d = obj(ctx.p.discussion);
    if (action === 'created')
      return embed(ctx, `${ctx.tag} New discussion #${str(d.number)}: ${str(d.title)}`, d.html_url, COLORS.neutral, str(d.body));
    if (action === 'answered') {
      const answer = obj(ctx.p.answer);
      return embed(
        ctx,
        `${ctx.tag} Discussion answered #${str(d.number)}: ${str(d.title)}`,
        answer.html_url ?? d.html_url,
        COLORS.pullOpen,
        str(answer.body),
      );
    }
    return undefined;
  },
  discussion_comment: (ctx, action) => {
    if (action !== 'created') return undefined;
    const d = obj(ctx.p.discussion);
    return comment(ctx, `${ctx.tag} New comment on discussion #${str(d.number)}: ${str(d.title)}`, obj(ctx.p.comment));
  },
};

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const checkColor = (conclusion: unknown): number =>
  conclusion === 'success' ? COLORS.pullOpen : conclusion === 'failure' ? 0xfc2929 : COLORS.neutral;

/** The embed for a delivery, or undefined when the platform does not show it (unsupported event, filtered action). */
export function renderGithub(event: string, payload: unknown): EmbedInput | undefined {
  if (!(GITHUB_EVENTS as readonly string[]).includes(event)) return undefined;
  const p = obj(payload);
  const repo = obj(p.repository);
  const ctx: Ctx = { p, repo, sender: obj(p.sender), tag: `[${str(repo.name)}]` };
  return HANDLERS[event as (typeof GITHUB_EVENTS)[number]](ctx, str(p.action));
}
