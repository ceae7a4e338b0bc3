/** The client links mails carry, in the platform's shapes (tokens in the fragment where it puts them there). */
export class RecoveryLinks {
  private readonly base: string;

  constructor(baseUrl: string) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  reset = (token: string): string => `${this.base}/reset#token=${token}`;
  oneTimeLogin = (ticket: string): string => `${this.base}/login/one-time?ticket=${ticket}`;
  authorizeIp = (token: string): string => `${this.base}/authorize-ip#token=${token}`;
  revert = (token: string): string => `${this.base}/wasntme/${token}`;
  /** The account settings, where the password is changed and signed-in devices are listed. */
  account = (): string => `${this.base}/settings/account`;
}
