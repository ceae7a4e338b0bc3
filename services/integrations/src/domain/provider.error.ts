/**
 * A provider (GIF or streaming platform) that did not answer usefully: down, slow past its
 * deadline, or answering something we cannot use. `status` is the provider's HTTP status, if any.
 */
export class ProviderError extends Error {
  constructor(
    readonly kind: 'timeout' | 'unavailable' | 'bad_response',
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
