/** A verification the provider opened: its id and the page the client shows in a webview. */
export interface StartedVerification {
  id: string;
  url: string;
}

/** The age-verification provider (the platform's is k-ID): start a check, read its outcome. */
export interface AgeVerifier {
  readonly vendorName: string;
  start(subjectId: string): Promise<StartedVerification>;
  /** PASS or FAIL once the user finished; PENDING before; UNKNOWN once the provider dropped it. */
  status(verificationId: string): Promise<'PASS' | 'FAIL' | 'PENDING' | 'UNKNOWN'>;
}

export class AgeVerificationError extends Error {
  constructor(detail: string) {
    super(`age verification provider: ${detail}`);
    this.name = 'AgeVerificationError';
  }
}

export interface KidOptions {
  baseUrl: string;
  apiKey: string;
  /** ISO 3166 jurisdiction the verification is judged under. */
  jurisdiction: string;
  timeoutMs?: number;
}

/**
 * k-ID's age-verification API (docs.k-id.com): `POST /api/v1/age-verification/perform-access-age-verification`
 * with the criteria nested (`criteria.ageCategory`) answers `{ id, url }`; `GET
 * /api/v1/age-verification/get-status?id=` answers the verification with its `status`. The API key
 * is a bearer token, server to server only; a verification the provider deleted is a 400.
 */
export class KidAgeVerifier implements AgeVerifier {
  readonly vendorName = 'K_ID';
  private readonly base: string;

  constructor(private readonly options: KidOptions) {
    this.base = `${options.baseUrl.replace(/\/+$/, '')}/api/v1/age-verification`;
  }

  async start(subjectId: string): Promise<StartedVerification> {
    const body = { jurisdiction: this.options.jurisdiction, criteria: { ageCategory: 'ADULT' }, subject: { id: subjectId } };
    const res = await this.call(`${this.base}/perform-access-age-verification`, { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) throw new AgeVerificationError(`start answered ${res.status}`);
    const answer = (await res.json()) as { id?: unknown; url?: unknown };
    if (typeof answer.id !== 'string' || typeof answer.url !== 'string') throw new AgeVerificationError('start answered no id or url');
    return { id: answer.id, url: answer.url };
  }

  async status(verificationId: string): Promise<'PASS' | 'FAIL' | 'PENDING' | 'UNKNOWN'> {
    const res = await this.call(`${this.base}/get-status?id=${encodeURIComponent(verificationId)}`, { method: 'GET' });
    if (res.status === 400 || res.status === 404) return 'UNKNOWN';
    if (!res.ok) throw new AgeVerificationError(`get-status answered ${res.status}`);
    const { status } = (await res.json()) as { status?: unknown };
    return status === 'PASS' || status === 'FAIL' ? status : 'PENDING';
  }

  private async call(url: string, init: { method: string; body?: string }): Promise<Response> {
    try {
      return await fetch(url, {
        ...init,
        headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json' },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (err) {
      throw new AgeVerificationError(err instanceof Error ? err.message : String(err));
    }
  }
}
