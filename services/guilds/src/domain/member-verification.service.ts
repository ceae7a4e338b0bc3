import { ApiError } from '@kith/platform';
import { actorIn, requirePermission } from './guild.guard.js';
import { guildErrors } from './guild.errors.js';
import { renderGuild } from './guild.view.js';
import { MEMBER_VERIFICATION_GATE } from './membership.service.js';
import { Permission } from './permissions.js';
import type { GuildsStore } from './ports.js';
import type { VerificationForm } from './records.js';

export interface VerificationChanges {
  enabled?: boolean;
  description?: string | null;
  form_fields?: unknown[];
}

/** The platform's member verification object. */
const view = (form: VerificationForm) => ({
  version: form.version.toISOString(),
  form_fields: form.form_fields,
  description: form.description,
});

/**
 * Member verification (GET/PATCH /guilds/{id}/member-verification): the form, and the gate that
 * makes new members `pending` (the MEMBER_VERIFICATION_GATE_ENABLED feature) switched on and off.
 */
export class MemberVerificationService {
  constructor(private readonly store: GuildsStore) {}

  async get(userId: string, guildId: string): Promise<Record<string, unknown>> {
    await actorIn(this.store, guildId, userId);
    const form = await this.store.verification.form(guildId);
    if (!form) throw guildErrors.unknownVerificationForm();
    return view(form);
  }

  /** MANAGE_GUILD. Turning the gate on or off changes the guild's features: its members hear GUILD_UPDATE. */
  async update(userId: string, guildId: string, changes: VerificationChanges): Promise<Record<string, unknown>> {
    return this.store.transaction(async (tx) => {
      const guild = await tx.guilds.lock(guildId);
      if (!guild) throw ApiError.of('UNKNOWN_GUILD');
      const actor = await actorIn(tx, guildId, userId);
      requirePermission(actor, Permission.MANAGE_GUILD);
      const { enabled, ...form } = changes;
      const saved = await tx.verification.saveForm(guildId, form);
      const on = guild.features.includes(MEMBER_VERIFICATION_GATE);
      if (enabled !== undefined && enabled !== on) {
        const features = enabled
          ? [...guild.features, MEMBER_VERIFICATION_GATE]
          : guild.features.filter((f) => f !== MEMBER_VERIFICATION_GATE);
        const updated = await tx.guilds.setFeatures(guildId, features);
        await tx.emit([
          { name: 'GUILD_UPDATE', audience: { guilds: [guildId] }, data: renderGuild(updated, actor.roles, await tx.emojis.list(guildId)) },
        ]);
      }
      return view(saved);
    });
  }
}
