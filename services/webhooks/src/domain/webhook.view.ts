import type { TokenVault } from './ports.js';
import { WebhookType, type WebhookRecord } from './webhook.types.js';

export interface WebhookView {
  id: string;
  type: number;
  guild_id: string;
  channel_id: string;
  name: string;
  avatar: string | null;
  application_id: string | null;
  user?: unknown;
  token?: string;
  url?: string;
  source_guild?: unknown;
  source_channel?: unknown;
}

export interface ViewOptions {
  vault: TokenVault;
  apiUrl: string;
  /** The creator as auth renders them; omitted when fetched with the token. */
  user?: unknown;
  /** Whether the viewer may see the token (managers of an INCOMING webhook, an APPLICATION webhook's application). */
  showToken: boolean;
}

/**
 * The platform's webhook object. `token` and `url` to those the caller decided may see them
 * (`showToken`), never for a CHANNEL_FOLLOWER webhook.
 */
export function renderWebhook(w: WebhookRecord, opts: ViewOptions): WebhookView {
  const view: WebhookView = {
    id: w.id,
    type: w.type,
    guild_id: w.guildId,
    channel_id: w.channelId,
    name: w.name,
    avatar: w.avatar,
    application_id: w.applicationId,
  };
  if (opts.user !== undefined) view.user = opts.user;
  if (w.type === WebhookType.CHANNEL_FOLLOWER) {
    if (w.sourceGuild) view.source_guild = w.sourceGuild;
    if (w.sourceChannel) view.source_channel = w.sourceChannel;
  }
  if (opts.showToken && w.type !== WebhookType.CHANNEL_FOLLOWER) {
    const token = opts.vault.open(w.tokenSealed);
    view.token = token;
    view.url = `${opts.apiUrl}/webhooks/${w.id}/${token}`;
  }
  return view;
}
