import { ChannelType } from '@kith/platform';
/** The platform's invite types. */
export const InviteType = { GUILD: 0, GROUP_DM: 1, FRIEND: 2 } as const;

/** Invite flags (bit values). */
export const InviteFlag = {
  IS_GUEST_INVITE: 1 << 0,
  IS_VIEWED: 1 << 1,
  IS_ENHANCED: 1 << 2,
  IS_APPLICATION_BYPASS: 1 << 3,
} as const;

/** Invite target types; 3–5 are never listed nor deletable. */
export const TargetType = { STREAM: 1, EMBEDDED_APPLICATION: 2, ROLE_SUBSCRIPTIONS: 3, CREATOR_PAGE: 4, LOBBY: 5 } as const;

/** The platform's channel types (one list, in the platform). */
export { ChannelType };

/** The guild channels an invite can point at (not categories, not threads). */
export const INVITABLE_GUILD_CHANNELS: ReadonlySet<number> = new Set([
  ChannelType.GUILD_TEXT,
  ChannelType.GUILD_VOICE,
  ChannelType.GUILD_ANNOUNCEMENT,
  ChannelType.GUILD_STAGE_VOICE,
  ChannelType.GUILD_FORUM,
  ChannelType.GUILD_MEDIA,
]);

/** The permission bits invites check (the platform's bitfield). */
export const Permission = {
  CREATE_INSTANT_INVITE: 1n << 0n,
  KICK_MEMBERS: 1n << 1n,
  ADMINISTRATOR: 1n << 3n,
  MANAGE_CHANNELS: 1n << 4n,
  MANAGE_GUILD: 1n << 5n,
  VIEW_AUDIT_LOG: 1n << 7n,
  VIEW_CHANNEL: 1n << 10n,
  CHANGE_NICKNAME: 1n << 26n,
  MANAGE_ROLES: 1n << 28n,
} as const;

export const has = (permissions: bigint, bit: bigint): boolean => (permissions & bit) === bit;

/** One invite as stored. */
export interface InviteRecord {
  code: string;
  type: number;
  guild_id: string | null;
  channel_id: string | null;
  inviter_id: string;
  max_age: number;
  max_uses: number;
  uses: number;
  temporary: boolean;
  flags: number;
  target_type: number | null;
  target_user_id: string | null;
  target_application_id: string | null;
  role_ids: string[];
  created_at: Date;
  expires_at: Date | null;
  /** Created with a target users file: only the users of its last completed job may see and accept it. */
  targeted: boolean;
}

/** What Create Channel Invite and Create User Invite store (the code comes from the store). */
export type NewInvite = Omit<InviteRecord, 'code' | 'uses' | 'created_at' | 'expires_at' | 'targeted'> & {
  code?: string;
  /** The rows of a target users file (checked later by the job). */
  targetFile?: string[] | undefined;
};

/** Limits of the platform. */
export const MAX_INVITES_PER_GUILD = 1000;
