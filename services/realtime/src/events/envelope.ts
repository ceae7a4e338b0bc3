import { z } from 'zod';
import type { EventEnvelope } from '@kith/platform';

const ids = z.array(z.string()).optional();

const envelope = z.looseObject({
  id: z.string().min(1),
  name: z.string().regex(/^[A-Z][A-Z0-9_]*$/),
  service: z.string(),
  occurred_at: z.string(),
  audience: z.looseObject({ users: ids, guilds: ids, channels: ids }),
  data: z.unknown(),
  internal: z.looseObject({ revoked_session_ids: ids }).optional(),
});

/** A stream message → the envelope it carries, or undefined when it is not one (it is then skipped). */
export function parseEnvelope(data: Uint8Array): EventEnvelope | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = envelope.safeParse(value);
  return parsed.success ? (parsed.data as EventEnvelope) : undefined;
}
