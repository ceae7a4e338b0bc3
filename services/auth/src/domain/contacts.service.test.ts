import { describe, expect, it } from 'vitest';
import { ContactsService, type ContactsPort } from './contacts.service.js';

/** Records what the store was asked for, answering as a findable user each time. */
function recording(ownPhone: string | null) {
  const asked: { phones: readonly string[]; emails: readonly string[] }[] = [];
  const port: ContactsPort = {
    phoneOf: async () => ownPhone,
    findable: async (_caller, phones, emails) => {
      asked.push({ phones, emails });
      return ['42'];
    },
  };
  return { service: new ContactsService(port), asked };
}

describe('ContactsService.find', () => {
  it('when contacts mix written forms, then numbers are looked up as E.164 and emails lower-cased, each once', async () => {
    const { service, asked } = recording(null);
    await service.find('1', ['+1 212-555-0142', '+12125550142', ' Someone@Example.COM ', 'someone@example.com']);
    expect(asked).toEqual([{ phones: ['+12125550142'], emails: ['someone@example.com'] }]);
  });

  it('when a number carries no country, then it is read in the caller’s own number’s country', async () => {
    const { service, asked } = recording('+442071838750');
    await service.find('1', ['020 7183 8751']);
    expect(asked).toEqual([{ phones: ['+442071838751'], emails: [] }]);
  });

  it('when nothing is a valid number or address, then the store is not asked and nobody is found', async () => {
    const { service, asked } = recording(null);
    expect(await service.find('1', ['not a number', '12', ''])).toEqual([]);
    expect(asked).toEqual([]);
  });
});
