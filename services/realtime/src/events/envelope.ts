import type { EventEnvelope } from '@kith/platform';

/*
 * Checked by hand, not with a schema library: every event of the stream passes here, and a zod
 * parse (which also copies the object) was a visible share of the service's CPU. The rules are
 * those of the envelope's type; unknown keys are kept.
 */

const EVENT_NAME = /^[A-Z][A-Z0-9_]*$/;

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Absent, or an array of strings. */
const isIdList = (value: unknown): boolean => value === undefined || (Array.isArray(value) && value.every((id) => typeof id === 'string'));

function isEnvelope(value: unknown): value is EventEnvelope {
  if (!isObject(value)) return false;
  const { id, name, service, occurred_at: occurredAt, audience, internal } = value;
  if (typeof id !== 'string' || id.length === 0) return false;
  if (typeof name !== 'string' || !EVENT_NAME.test(name)) return false;
  if (typeof service !== 'string' || typeof occurredAt !== 'string') return false;
  if (!isObject(audience) || !isIdList(audience.users) || !isIdList(audience.guilds) || !isIdList(audience.channels)) return false;
  if (!isSessionList(audience.sessions)) return false;
  if (internal === undefined) return true;
  return isObject(internal) && isIdList(internal.revoked_session_ids) && isMove(internal.moved_to_session);
}

/** Absent, or an array of (session id, user id) pairs. */
const isSessionList = (value: unknown): boolean =>
  value === undefined ||
  (Array.isArray(value) && value.every((s) => isObject(s) && typeof s.id === 'string' && typeof s.user_id === 'string'));

/** Absent, or the session a revoked one goes on as. */
const isMove = (value: unknown): boolean =>
  value === undefined || (isObject(value) && typeof value.id === 'string' && typeof value.id_hash === 'string');

/** A stream message → the envelope it carries, or undefined when it is not one (it is then skipped). */
export function parseEnvelope(data: Uint8Array): EventEnvelope | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
  return isEnvelope(value) ? value : undefined;
}
