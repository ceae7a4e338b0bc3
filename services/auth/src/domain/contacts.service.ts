import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/** Friend discovery flags (user settings): findable by phone number, by verified email. */
export const FIND_BY_PHONE = 1 << 1;
export const FIND_BY_EMAIL = 1 << 2;
/** The most contacts one sync may carry (the platform's cap). */
export const MAX_CONTACTS = 10_000;

export interface ContactsPort {
  /** The caller's own phone (E.164), whose country reads numbers written without one. */
  phoneOf(userId: string): Promise<string | null>;
  /** Live, human accounts other than the caller findable by these E.164 numbers or lower-cased emails. */
  findable(callerId: string, phones: readonly string[], emails: readonly string[]): Promise<string[]>;
}

/** Contact sync's lookups: who, among the numbers and addresses a device holds, lets themselves be found. */
export class ContactsService {
  constructor(private readonly store: ContactsPort) {}

  async find(callerId: string, contacts: readonly string[]): Promise<string[]> {
    const own = await this.store.phoneOf(callerId);
    const region = own ? parsePhoneNumberFromString(own)?.country : undefined;
    const phones = new Set<string>();
    const emails = new Set<string>();
    for (const raw of contacts.slice(0, MAX_CONTACTS)) {
      const contact = raw.trim();
      if (contact.includes('@')) {
        if (contact.length <= 320) emails.add(contact.toLowerCase());
        continue;
      }
      const phone = normalisePhone(contact, region);
      if (phone) phones.add(phone);
    }
    if (phones.size === 0 && emails.size === 0) return [];
    return this.store.findable(callerId, [...phones], [...emails]);
  }
}

/** E.164, as phones are stored; a number without `+` is read in the caller's country, if known. */
function normalisePhone(contact: string, region: CountryCode | undefined): string | undefined {
  if (contact.length > 64) return undefined;
  const parsed = parsePhoneNumberFromString(contact, region);
  return parsed?.isValid() ? parsed.format('E.164') : undefined;
}
