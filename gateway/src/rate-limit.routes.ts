import { createHash } from 'node:crypto';
import type { LimitRule } from './rate-limit.table.js';

/** A rule the request falls under, and the value of its major parameter ('' when it has none). */
export interface RuleMatch {
  rule: LimitRule;
  major: string;
}

interface CompiledRoute {
  method: string;
  pattern: RegExp;
  rule: LimitRule;
}

/** `{guild}` → `g:<id>`: each guild, channel and webhook (with its token) has counts of its own. */
function majorOf(groups: Record<string, string | undefined> | undefined): string {
  if (!groups) return '';
  if (groups.webhook !== undefined) {
    // The token is part of the parameter (as on the platform), kept out of Redis keys by a hash.
    const token = groups.token === undefined ? '' : createHash('sha256').update(groups.token).digest('base64url').slice(0, 16);
    return `w:${groups.webhook}:${token}`;
  }
  if (groups.guild !== undefined) return `g:${groups.guild}`;
  if (groups.channel !== undefined) return `c:${groups.channel}`;
  return '';
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `POST /guilds/{guild}/channels` → its method and an anchored pattern (a trailing slash allowed). */
export function compileRoute(route: string): { method: string; pattern: RegExp } {
  const [method, template] = route.split(' ') as [string, string | undefined];
  if (!template?.startsWith('/')) throw new Error(`rate limit route ${JSON.stringify(route)}: expected "METHOD /path"`);
  let source = '';
  const segments = template.slice(1).split('/');
  segments.forEach((segment, i) => {
    if (segment === '**') {
      if (i !== segments.length - 1) throw new Error(`rate limit route ${route}: ** only at the end`);
      source += '(?:/.*)?';
    } else if (/^\{[a-z]+\}$/.test(segment)) source += `/(?<${segment.slice(1, -1)}>[^/]+)`;
    else source += `/${escape(segment)}`;
  });
  return { method: method.toUpperCase(), pattern: new RegExp(`^${source}/?$`) };
}

/** The table's routes, compiled once, grouped by first path segment so a request tries only a few. */
export class LimitRoutes {
  private readonly byFirstSegment = new Map<string, CompiledRoute[]>();

  constructor(rules: readonly LimitRule[]) {
    for (const rule of rules) {
      for (const route of rule.routes) {
        const { method, pattern } = compileRoute(route);
        const first = route.split(' ')[1]!.split('/')[1]!;
        const list = this.byFirstSegment.get(first) ?? [];
        list.push({ method, pattern, rule });
        this.byFirstSegment.set(first, list);
      }
    }
  }

  /** Every rule the request falls under, in table order, each once. */
  match(method: string, path: string): RuleMatch[] {
    const end = path.indexOf('/', 1);
    const candidates = this.byFirstSegment.get(end === -1 ? path.slice(1) : path.slice(1, end));
    if (!candidates) return [];
    const matches: RuleMatch[] = [];
    for (const { method: wanted, pattern, rule } of candidates) {
      if (wanted !== '*' && wanted !== method) continue;
      const found = pattern.exec(path);
      if (found && !matches.some((m) => m.rule === rule)) matches.push({ rule, major: majorOf(found.groups) });
    }
    return matches;
  }
}
