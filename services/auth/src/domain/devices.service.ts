/** The platform's push notification providers (userdoccers `topics/push-notifications`). */
export const PUSH_PROVIDERS = ['gcm', 'apns', 'apns_internal', 'apns_voip', 'apns_internal_voip'] as const;
export type PushProvider = (typeof PUSH_PROVIDERS)[number];

export interface PushToken {
  provider: string;
  token: string;
}

export interface PushRegistration extends PushToken {
  bundleId: string | null;
  bypassServerThrottling: boolean;
}

/** A registered token, with the session holding it. */
export interface PushDevice extends PushToken {
  sessionId: string;
  bundleId: string | null;
}

export interface DevicesPort {
  /**
   * Gives the tokens to the session (taking them from any session that held them), unless the
   * session has ended meanwhile: false then, and nothing is written.
   */
  register(userId: string, sessionId: string, registrations: PushRegistration[]): Promise<boolean>;
  /** Drops the user's registrations of these tokens, whichever of their sessions holds them. */
  unregister(userId: string, tokens: PushToken[]): Promise<void>;
  /** The tokens of the user's live sessions: where a push for them goes. */
  listLive(userId: string): Promise<PushDevice[]>;
}

export interface RegisterDeviceInput {
  provider: PushProvider;
  token: string;
  voip_provider?: PushProvider | null | undefined;
  voip_token?: string | null | undefined;
  bundle_id?: string | null | undefined;
  bypass_server_throttling_supported?: boolean | undefined;
}

/** The optional token pairs a request names (Logout's and Unregister Device's bodies). */
export function tokensOf(body: {
  provider?: string | null;
  token?: string | null;
  voip_provider?: string | null;
  voip_token?: string | null;
}): PushToken[] {
  const pairs: PushToken[] = [];
  if (body.provider && body.token) pairs.push({ provider: body.provider, token: body.token });
  if (body.voip_provider && body.voip_token) pairs.push({ provider: body.voip_provider, token: body.voip_token });
  return pairs;
}

/**
 * Device push tokens, per session (Register Device, Unregister Device; Logout unregisters the one
 * it names and the session's end drops the rest). A sender of pushes reads them over gRPC.
 */
export class DevicesService {
  constructor(private readonly devices: DevicesPort) {}

  /** False when the caller's session ended before the registration landed. */
  register(userId: string, sessionId: string, input: RegisterDeviceInput): Promise<boolean> {
    const common = { bundleId: input.bundle_id ?? null, bypassServerThrottling: input.bypass_server_throttling_supported ?? false };
    const registrations = tokensOf(input).map((t) => ({ ...t, ...common }));
    return this.devices.register(userId, sessionId, registrations);
  }

  unregister(userId: string, tokens: PushToken[]): Promise<void> {
    return tokens.length === 0 ? Promise.resolve() : this.devices.unregister(userId, tokens);
  }

  list(userId: string): Promise<PushDevice[]> {
    return this.devices.listLive(userId);
  }
}
