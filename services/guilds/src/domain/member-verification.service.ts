import { ApiError, type FieldError } from '@kith/platform';
import { actorIn, requirePermission } from './guild.guard.js';
import { guildErrors } from './guild.errors.js';
import { renderGuild, renderMember } from './guild.view.js';
import { joinRequestView, MEMBER_VERIFICATION_GATE } from './membership.service.js';
import { Permission } from './permissions.js';
import type { GuildsStore, UserDirectory } from './ports.js';
import type { VerificationForm } from './records.js';
import { userOf } from './user.directory.js';

/** One answered field of a join request: the form's field as shown, with the applicant's `response`. */
export interface AnsweredField {
  field_type: string;
  label: string;
  required: boolean;
  response?: string | number | boolean | null | undefined;
}

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
  constructor(
    private readonly store: GuildsStore,
    private readonly users: UserDirectory,
  ) {}

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

  /**
   * Create Guild Join Request (PUT /guilds/{id}/requests/@me): a pending member submits the form,
   * every field of it in its order (field type and label as the form has them), each required one
   * answered (a TERMS field: true). A form of TERMS fields only is approved at once, as the platform
   * approves it without a moderator: the member is no longer pending (GUILD_MEMBER_UPDATE to the
   * guild) and the request is APPROVED. Any other form waits for a moderator, SUBMITTED. The user
   * hears GUILD_JOIN_REQUEST_UPDATE either way. A request already decided is answered as it is.
   */
  async submit(userId: string, guildId: string, fields: AnsweredField[]): Promise<Record<string, unknown>> {
    const user = await userOf(this.users, userId);
    return this.store.transaction(async (tx) => {
      const guild = await tx.guilds.share(guildId, userId);
      const member = guild ? await tx.members.get(guildId, userId) : undefined;
      if (!guild || !member) throw ApiError.of('UNKNOWN_GUILD');
      const form = await tx.verification.form(guildId);
      if (!form || !guild.features.includes(MEMBER_VERIFICATION_GATE)) throw guildErrors.unknownVerificationForm();
      const request = await tx.verification.lockJoinRequest(guildId, userId);
      if (!request) throw guildErrors.unknownVerificationForm();
      if (request.status === 'APPROVED' || request.status === 'REJECTED') return joinRequestView(request);
      checkAnswers(form.form_fields as AnsweredField[], fields);
      const automatic = (form.form_fields as AnsweredField[]).every((f) => f.field_type === 'TERMS');
      const submitted = await tx.verification.submitJoinRequest(request.id, automatic ? 'APPROVED' : 'SUBMITTED', fields);
      const view = joinRequestView(submitted);
      await tx.emit([
        {
          name: 'GUILD_JOIN_REQUEST_UPDATE',
          audience: { users: [userId] },
          data: { guild_id: guildId, status: submitted.status, request: view },
        },
      ]);
      if (automatic && member.pending) {
        await tx.members.update(guildId, userId, { pending: false });
        const body = renderMember({ ...member, pending: false }, user);
        await tx.emit([{ name: 'GUILD_MEMBER_UPDATE', audience: { guilds: [guildId] }, data: { ...body, guild_id: guildId } }]);
      }
      return view;
    });
  }
}

/** The answers must be the form's fields, in its order, with every required one answered. */
function checkAnswers(form: readonly AnsweredField[], answers: readonly AnsweredField[]): void {
  if (answers.length !== form.length)
    throw ApiError.form({ form_fields: { code: 'BASE_TYPE_BAD_LENGTH', message: `Must be ${form.length} in length.` } });
  const errors: Record<string, FieldError> = {};
  form.forEach((field, i) => {
    const answer = answers[i]!;
    if (answer.field_type !== field.field_type || answer.label !== field.label) {
      errors[`form_fields.${i}.label`] = { code: 'MEMBER_VERIFICATION_FIELD_MISMATCH', message: 'Does not match the form.' };
      return;
    }
    const response = answer.response;
    const answered =
      field.field_type === 'TERMS'
        ? response === true
        : typeof response === 'string'
          ? response.trim() !== ''
          : typeof response === 'number';
    if (field.required && !answered)
      errors[`form_fields.${i}.response`] = { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' };
  });
  if (Object.keys(errors).length > 0) throw ApiError.form(errors);
}
