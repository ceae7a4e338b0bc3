import type { Express } from 'express';
import { z } from 'zod';
import { ApiError, lengthString, parse, userIdOf } from '@kith/platform';
import { ANYONE_WITH_CONTACT_INFO, MUTUAL_CONTACT_INFO_ONLY, type ContactBookService } from '../domain/contact-book.service.js';

const base = '/users/@me/connections/contacts/:connection_id';

/** A contact-sync connection is the user's one: the platform names it `@me`. */
function ownConnection(params: unknown): void {
  if ((params as { connection_id?: string }).connection_id !== '@me') throw ApiError.of('UNKNOWN_CONNECTION');
}

const connectBody = z.object({
  name: lengthString(1, 100),
  friend_sync: z.boolean().optional(),
});

const choices = { params: { code: 'BASE_TYPE_CHOICES', message: 'Value must be one of {1, 2}.' } };

/** Sync Contacts: phone numbers (or emails) to find accounts of, at most 10000. */
const syncBody = z.object({
  friend_list_entries: z.array(z.object({ friend_id: lengthString(1, 320) })).max(10_000),
  background: z.boolean(),
  allowed_in_suggestions: z
    .number()
    .int()
    .refine((v) => v === MUTUAL_CONTACT_INFO_ONLY || v === ANYONE_WITH_CONTACT_INFO, choices),
  include_mutual_friends_count: z.boolean(),
  add_reverse_friend_suggestions: z.boolean().optional(),
});

/** The contact-sync connection and its sync (the platform's contact-sync flow). */
export function contactRoutes(app: Express, contacts: ContactBookService): void {
  app.put(base, async (req, res) => {
    const userId = userIdOf(res);
    ownConnection(req.params);
    const { name, friend_sync } = parse(connectBody, req.body);
    res.json(await contacts.connect(userId, name, friend_sync ?? false));
  });

  app.delete(base, async (req, res) => {
    const userId = userIdOf(res);
    ownConnection(req.params);
    await contacts.disconnect(userId);
    res.status(204).end();
  });

  app.put(`${base}/external-friend-list-entries`, async (req, res) => {
    const userId = userIdOf(res);
    ownConnection(req.params);
    const body = parse(syncBody, req.body);
    res.json(
      await contacts.sync(userId, {
        contacts: body.friend_list_entries.map((e) => e.friend_id),
        background: body.background,
        allowedInSuggestions: body.allowed_in_suggestions,
        addReverse: body.add_reverse_friend_suggestions ?? false,
      }),
    );
  });

  app.get(`${base}/external-friend-list-entries/settings`, async (req, res) => {
    const userId = userIdOf(res);
    ownConnection(req.params);
    res.json(await contacts.settings(userId));
  });
}
