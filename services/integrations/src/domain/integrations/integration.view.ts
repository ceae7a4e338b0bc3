import { userView, type ContractUser, type PartialUserView } from '@kith/platform';
import type { ApplicationRecord, IntegrationRecord } from './model.js';

/** What a rendering needs besides the row: its application, the users it names, and metadata when asked. */
export interface ViewContext {
  applications: Map<string, ApplicationRecord>;
  users: Map<string, ContractUser>;
  /** Only with include_role_connections_metadata. */
  roleConnections?: Map<string, unknown[]>;
  /** Get Guild Integrations shows who added it; events and other answers do not. */
  withUser?: boolean;
}

export interface IntegrationApplicationView {
  id: string;
  name: string;
  icon: string | null;
  description: string;
  type: null;
  bot?: PartialUserView;
  is_verified: boolean;
  is_discoverable: boolean;
  is_monetized: boolean;
  role_connections_verification_url?: string | null;
}

export function integrationApplicationView(
  app: ApplicationRecord,
  users: Map<string, ContractUser>,
  withVerificationUrl = false,
): IntegrationApplicationView {
  return {
    id: app.id,
    name: app.name,
    icon: app.icon,
    description: app.description,
    type: null,
    ...(app.bot_user_id ? { bot: userView(app.bot_user_id, users.get(app.bot_user_id)) } : {}),
    is_verified: false,
    is_discoverable: false,
    is_monetized: false,
    ...(withVerificationUrl ? { role_connections_verification_url: app.role_connections_verification_url } : {}),
  };
}

/** The platform's integration object: which fields appear depends on the type. */
export function integrationView(row: IntegrationRecord, ctx: ViewContext): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: row.id,
    name: row.name,
    type: row.type,
    enabled: row.enabled,
    account: { id: row.account_id, name: row.account_name },
  };
  if (row.type === 'twitch' || row.type === 'youtube') {
    Object.assign(view, {
      syncing: row.syncing ?? false,
      role_id: row.role_id,
      ...(row.type === 'twitch' ? { enable_emoticons: row.enable_emoticons ?? false } : {}),
      expire_behavior: row.expire_behavior ?? 0,
      expire_grace_period: row.expire_grace_period ?? 1,
      synced_at: (row.synced_at ?? new Date(0)).toISOString(),
      subscriber_count: row.subscriber_count ?? 0,
      revoked: row.revoked ?? false,
    });
  }
  const app = row.application_id ? ctx.applications.get(row.application_id) : undefined;
  if (row.type === 'discord' && app) {
    view.application = integrationApplicationView(app, ctx.users, ctx.roleConnections !== undefined);
    view.scopes = row.scopes;
    if (ctx.roleConnections) view.role_connections_metadata = ctx.roleConnections.get(app.id) ?? [];
  }
  if (ctx.withUser && row.user_id) view.user = userView(row.user_id, ctx.users.get(row.user_id));
  return view;
}

/** The user ids a rendering of these rows names: who added each, and each application's bot. */
export function namedUserIds(
  rows: Pick<IntegrationRecord, 'application_id' | 'user_id'>[],
  applications: Map<string, ApplicationRecord>,
  withUser: boolean,
): string[] {
  const ids = new Set<string>();
  for (const row of rows) {
    if (withUser && row.user_id) ids.add(row.user_id);
    const bot = row.application_id ? applications.get(row.application_id)?.bot_user_id : null;
    if (bot) ids.add(bot);
  }
  return [...ids];
}
