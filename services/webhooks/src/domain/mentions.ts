import type { AllowedMentions } from './message.input.js';

export interface ParsedMentions {
  userIds: string[];
  roleIds: string[];
  everyone: boolean;
}

const USER_MENTION = /<@!?(\d{1,20})>/g;
const ROLE_MENTION = /<@&(\d{1,20})>/g;
const EVERYONE = /@(everyone|here)\b/;

/**
 * The mentions of `content` that `allowed` lets through. Without `allowed_mentions` a webhook
 * mentions everything it names; `parse` opens a kind wholesale, `users`/`roles` list exact ids.
 */
export function parseMentions(content: string, allowed: AllowedMentions | null | undefined): ParsedMentions {
  const users = unique([...content.matchAll(USER_MENTION)].map((m) => m[1]!));
  const roles = unique([...content.matchAll(ROLE_MENTION)].map((m) => m[1]!));
  const everyone = EVERYONE.test(content);
  if (!allowed) return { userIds: users, roleIds: roles, everyone };
  const parse = new Set(allowed.parse ?? []);
  const userList = new Set(allowed.users ?? []);
  const roleList = new Set(allowed.roles ?? []);
  return {
    userIds: parse.has('users') ? users : users.filter((id) => userList.has(id)),
    roleIds: parse.has('roles') ? roles : roles.filter((id) => roleList.has(id)),
    everyone: everyone && parse.has('everyone'),
  };
}

/** `parse` with a kind and a list of the same kind contradict each other (the platform's 50035). */
export function allowedMentionsConflict(allowed: AllowedMentions | null | undefined): 'users' | 'roles' | undefined {
  if (!allowed?.parse) return undefined;
  if (allowed.parse.includes('users') && allowed.users?.length) return 'users';
  if (allowed.parse.includes('roles') && allowed.roles?.length) return 'roles';
  return undefined;
}

const unique = (ids: string[]): string[] => [...new Set(ids)];
