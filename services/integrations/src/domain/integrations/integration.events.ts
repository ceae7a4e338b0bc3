import type { DomainEvent } from '@kith/platform';
import type { IntegrationRecord } from './model.js';

/** The guild's integrations changed: clients that show them refetch. */
export const guildIntegrationsUpdate = (guildId: string): DomainEvent => ({
  name: 'GUILD_INTEGRATIONS_UPDATE',
  audience: { guilds: [guildId] },
  data: { guild_id: guildId },
});

/** INTEGRATION_CREATE / INTEGRATION_UPDATE: the integration object with its guild's id. */
export const integrationChanged = (
  name: 'INTEGRATION_CREATE' | 'INTEGRATION_UPDATE',
  guildId: string,
  view: Record<string, unknown>,
): DomainEvent => ({ name, audience: { guilds: [guildId] }, data: { ...view, guild_id: guildId } });

/** INTEGRATION_DELETE: to the guild's members, or to a group DM's recipients. */
export function integrationDeleted(row: IntegrationRecord, recipients: string[] = []): DomainEvent {
  const data = {
    id: row.id,
    ...(row.guild_id ? { guild_id: row.guild_id } : { channel_id: row.channel_id }),
    ...(row.application_id ? { application_id: row.application_id } : {}),
  };
  return { name: 'INTEGRATION_DELETE', audience: row.guild_id ? { guilds: [row.guild_id] } : { users: recipients }, data };
}
