import { ApiError, type FieldError } from '@kith/platform';
import type { Admission, RegistrationChecks } from '../accounts.service.js';
import type { FingerprintsService } from './fingerprints.service.js';
import { locationMetadata } from './location.js';
import type { PhoneVerificationService } from './phone-verification.service.js';

const CONSENT_REQUIRED: FieldError = { code: 'CONSENT_REQUIRED', message: 'You must agree to the Terms of Service and Privacy Policy.' };
const PHONE_TOKEN_INVALID: FieldError = { code: 'PHONE_TOKEN_INVALID', message: 'Invalid phone verification token.' };

/**
 * What a registration needs beyond its body: consent where the caller's country requires it, a
 * verified number behind `phone_token`, and the snowflake of a fingerprint we issued. The single-use
 * grants are spent only once the account exists, so a taken username does not burn a phone code.
 */
export class RegistrationGate implements RegistrationChecks {
  constructor(
    private readonly phones: PhoneVerificationService,
    private readonly fingerprints: FingerprintsService,
  ) {}

  async admit(input: { consent?: boolean; phone_token?: string; fingerprint?: string }, clientIp: string): Promise<Admission> {
    const errors: Record<string, FieldError> = {};
    if (locationMetadata(clientIp).consent_required && input.consent !== true) errors.consent = CONSENT_REQUIRED;
    const phone = input.phone_token ? await this.phones.phoneOf(input.phone_token) : undefined;
    if (input.phone_token && !phone) errors.phone_token = PHONE_TOKEN_INVALID;
    if (Object.keys(errors).length) throw ApiError.form(errors);
    const id = input.fingerprint ? await this.fingerprints.idOf(input.fingerprint) : undefined;
    return {
      ...(id ? { id } : {}),
      ...(phone ? { phone } : {}),
      settle: async () => {
        if (input.phone_token && phone) await this.phones.settle(input.phone_token);
        if (input.fingerprint && id) await this.fingerprints.settle(input.fingerprint);
      },
    };
  }
}
