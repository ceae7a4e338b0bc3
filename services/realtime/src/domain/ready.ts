import type { IdentifyData } from '../gateway/protocol.js';
import type { CurrentUser, PresenceView, ReadyGuilds, TokenOwner } from './ports.js';

export interface ReadyInput {
  version: number;
  sessionId: string;
  resumeUrl: string;
  account: TokenOwner;
  current: CurrentUser;
  identify: IdentifyData;
  relationships?: unknown[];
  guilds?: ReadyGuilds;
  /** The online friends' presences. */
  presences?: PresenceView[];
}

const emptyVersioned = () => ({ entries: [], partial: false, version: 0 });

/** The client kind a session list shows, from what Identify's `properties` say of it. */
function clientInfo(properties: Record<string, unknown>) {
  const text = (key: string) => {
    const value = properties[key] ?? properties[`$${key}`];
    return typeof value === 'string' && value ? value.toLowerCase() : undefined;
  };
  return { client: text('browser') ? 'web' : 'unknown', os: text('os') ?? 'unknown', version: 0 };
}

/**
 * READY's `d`. Read states and the like stay empty until the services that own them exist; `session_id`, `resume_gateway_url` and `user` are what clients need to go on.
 * Friends' presences come twice, as the platform sends them: `presences`, and `merged_presences`
 * (with `user_id` for the user, and one list per guild in READY's guild order; none are sent at
 * startup, so each is empty).
 */
export function readyPayload(input: ReadyInput) {
  const { current, identify } = input;
  return {
    v: input.version,
    user: current.user,
    user_settings: current.settings,
    session_id: input.sessionId,
    session_type: 'normal',
    resume_gateway_url: input.resumeUrl,
    auth_session_id_hash: input.account.authSessionIdHash,
    guilds: input.guilds?.guilds ?? [],
    relationships: input.relationships ?? [],
    private_channels: input.guilds?.privateChannels ?? [],
    presences: input.presences ?? [],
    merged_presences: {
      friends: (input.presences ?? []).map(({ user, ...rest }) => ({ user_id: user.id, ...rest })),
      guilds: (input.guilds?.guilds ?? []).map(() => []),
    },
    users: [],
    connected_accounts: [],
    guild_join_requests: [],
    merged_members: [],
    read_state: emptyVersioned(),
    user_guild_settings: emptyVersioned(),
    sessions: [{ session_id: input.sessionId, client_info: clientInfo(identify.properties), ...sessionPresence(identify) }],
    ...(identify.shard ? { shard: identify.shard } : {}),
    ...(input.account.bot ? { application: { id: current.user.id, flags: 0 } } : {}),
  };
}

/** The session's own presence as Identify asked for it (`unknown`, or none, is online). */
function sessionPresence({ presence }: IdentifyData): { status: string; activities: unknown[] } {
  if (!presence || presence.status === 'unknown') return { status: 'online', activities: [] };
  return { status: presence.status, activities: presence.activities };
}
