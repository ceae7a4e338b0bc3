import { describe, expect, it } from 'vitest';
import { CONSENT_COUNTRIES, locationMetadata } from './location.js';

describe('locationMetadata', () => {
  it('when the address is in Germany, then consent and an unchecked opt-in are required', () => {
    expect(locationMetadata('85.214.132.117')).toEqual({
      country_code: 'DE',
      consent_required: true,
      promotional_email_opt_in: { required: true, pre_checked: false },
    });
  });

  it('when the address is in Canada, then only the promotional opt-in is required', () => {
    expect(locationMetadata('142.250.80.46').country_code).toBe('US');
    const ca = locationMetadata('24.48.0.1');
    expect(ca).toEqual({ country_code: 'CA', consent_required: false, promotional_email_opt_in: { required: true, pre_checked: false } });
  });

  it('when the address is not an IP or private, then the country is empty and nothing is required', () => {
    for (const ip of ['', 'not-an-ip', '192.168.1.1', '::1'])
      expect(locationMetadata(ip)).toEqual({
        country_code: '',
        consent_required: false,
        promotional_email_opt_in: { required: false, pre_checked: true },
      });
  });

  it('when the consent list is read, then it holds the 27 EU members, the 3 other EEA members and the UK', () => {
    expect(CONSENT_COUNTRIES.size).toBe(31);
    for (const code of ['FR', 'IE', 'NO', 'IS', 'LI', 'GB']) expect(CONSENT_COUNTRIES.has(code)).toBe(true);
    expect(CONSENT_COUNTRIES.has('CH')).toBe(false);
  });
});
