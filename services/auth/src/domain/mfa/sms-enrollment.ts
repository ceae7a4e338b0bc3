import { ApiError, type FieldError } from '@kith/platform';
import { duplicateError } from '../accounts.service.js';
import type { ElevationGuard, ElevationProof } from './elevation.js';
import type { MfaService } from './mfa.service.js';
import type { SmsAccountStore } from './ports.js';

/** The registration helpers' phone codes and tokens, reused to add a phone to an account. */
export interface PhoneTokens {
  send(phone: string, clientIp: string): Promise<void>;
  phoneOf(token: string): Promise<string | undefined>;
  settle(token: string): Promise<void>;
}

export interface AddPhoneInput {
  phone?: string | undefined;
  phone_token?: string | undefined;
  password?: string | undefined;
}

const PHONE_TOKEN_INVALID: FieldError = { code: 'PHONE_TOKEN_INVALID', message: 'Invalid phone verification token.' };
const REQUIRED: FieldError = { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' };
const SMS_MFA_USES_PHONE: FieldError = {
  code: 'PHONE_REQUIRED_FOR_SMS_MFA',
  message: 'Disable SMS two-factor authentication before removing this phone number.',
};

/** The phone on the account and SMS as a second factor: the platform's phone and `mfa/sms` endpoints. */
export class SmsEnrollment {
  constructor(
    private readonly mfa: MfaService,
    private readonly guard: ElevationGuard,
    private readonly phones: PhoneTokens,
    private readonly store: SmsAccountStore,
  ) {}

  /**
   * `POST /users/@me/phone`: with `phone`, texts it a code (the client then verifies it at
   * `/phone-verifications/verify`); with `phone_token` and `password`, sets the verified number.
   */
  async addPhone(userId: string, input: AddPhoneInput, clientIp: string): Promise<void> {
    if (!input.phone_token) {
      if (!input.phone) throw ApiError.form({ phone_token: REQUIRED });
      await this.mfa.user(userId);
      return this.phones.send(input.phone, clientIp);
    }
    const user = await this.mfa.user(userId);
    await this.mfa.checkPassword(user, input.password);
    const phone = await this.phones.phoneOf(input.phone_token);
    if (!phone) throw ApiError.form({ phone_token: PHONE_TOKEN_INVALID });
    if (phone !== user.phone && !(await this.store.setPhone(userId, phone))) throw duplicateError(['phone']);
    await this.phones.settle(input.phone_token);
  }

  /** `DELETE /users/@me/phone`: refused while the number is an SMS factor. */
  async removePhone(userId: string, password: string | undefined): Promise<void> {
    const user = await this.mfa.user(userId);
    await this.mfa.checkPassword(user, password);
    if (!(await this.store.removePhone(userId))) throw ApiError.form({ phone: SMS_MFA_USES_PHONE });
  }

  /** Needs TOTP (60002) and a verified phone (70007); enabling twice is a no-op. */
  async enable(userId: string, password: string | undefined): Promise<void> {
    const user = await this.mfa.user(userId);
    await this.mfa.checkPassword(user, password);
    if (!user.mfa_enabled) throw ApiError.of('MFA_NOT_ENABLED');
    if (!user.phone) throw ApiError.of('PHONE_VERIFICATION_REQUIRED');
    if (user.sms_mfa_enabled) return;
    if (!(await this.store.enableSms(userId))) throw ApiError.of('SMS_MFA_UNAVAILABLE');
  }

  /** A sensitive action: elevation first, then the password; 60010 when SMS was off. */
  async disable(userId: string, password: string | undefined, proof: ElevationProof): Promise<void> {
    await this.guard.require(userId, proof);
    const user = await this.mfa.user(userId);
    await this.mfa.checkPassword(user, password);
    if (!(await this.store.disableSms(userId))) throw ApiError.of('SMS_MFA_NOT_ENABLED');
  }
}
