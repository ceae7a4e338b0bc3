import { ChannelApi } from './channel.api.js';
import { ChannelService } from './channel.service.js';
import { ThreadService } from './channel.threads.js';
import { DmService } from './dm.service.js';
import { GuestService } from './guest.service.js';
import { GuildsService } from './guilds.service.js';
import { LookupService } from './lookup.service.js';
import { MemberSearchService } from './member-search.service.js';
import { MembersService } from './members.service.js';
import { MembershipService } from './membership.service.js';
import { MemberVerificationService } from './member-verification.service.js';
import { PermissionService } from './permission.service.js';
import type { GuildsStore, IdSource, PermissionChecker, UserDirectory } from './ports.js';
import { ManagedEmojisService } from './managed-emojis.service.js';
import { ManagedRolesService } from './managed-roles.service.js';
import { RolesService } from './roles.service.js';

export interface GuildsPorts {
  store: GuildsStore;
  users: UserDirectory;
  ids: IdSource;
  checker: PermissionChecker;
}

/** Every domain service of guilds, each built once over the ports (app.ts passes the real ones, unit tests fakes). */
export function guildsDomain({ store, users, ids, checker }: GuildsPorts) {
  const membership = new MembershipService(store, users, ids, new GuestService(store));
  const channelService = new ChannelService(store, ids);
  const dms = new DmService(store, users, ids);
  return {
    membership,
    channels: new ChannelApi(store, channelService, new ThreadService(store, ids, channelService), dms),
    guilds: new GuildsService(store, users, ids, membership),
    roles: new RolesService(store, ids, channelService),
    members: new MembersService(store, users, membership),
    lookups: new LookupService(store, users, dms),
    memberSearch: new MemberSearchService(store, users),
    permissions: new PermissionService(checker),
    managedRoles: new ManagedRolesService(store, ids, channelService, users),
    managedEmojis: new ManagedEmojisService(store, ids),
    verification: new MemberVerificationService(store, users),
  };
}

export type GuildsDomainServices = ReturnType<typeof guildsDomain>;
