import type { ServiceImpl } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { ChannelApi } from '../domain/channel.api.js';
import type { GuildsService as GuildsDomainService } from '../domain/guilds.service.js';
import type { LookupService } from '../domain/lookup.service.js';
import type { ManagedEmojisService } from '../domain/managed-emojis.service.js';
import type { ManagedRolesService } from '../domain/managed-roles.service.js';
import type { MemberSearchService } from '../domain/member-search.service.js';
import type { MembershipService } from '../domain/membership.service.js';
import type { PermissionService } from '../domain/permission.service.js';
import { channelsGrpc } from './channels.grpc.js';
import { managedRolesGrpc } from './managed-roles.grpc.js';
import { membershipGrpc } from './membership.grpc.js';
import { permissionsGrpc } from './permissions.grpc.js';
import { premiumGrpc } from './premium.grpc.js';

/** The domain services the gRPC handlers call (app.ts builds them). */
export interface GuildsDomain {
  permissions: PermissionService;
  lookups: LookupService;
  membership: MembershipService;
  channels: ChannelApi;
  guilds: GuildsDomainService;
  managedRoles: ManagedRolesService;
  managedEmojis: ManagedEmojisService;
  memberSearch: MemberSearchService;
}

/**
 * The gRPC service, from the parts that own each method: one file per part, each handler a thin
 * call into the domain (addService refuses a method left unimplemented).
 */
export function guildsGrpc(domain: GuildsDomain): ServiceImpl<typeof GuildsService> {
  return {
    ...permissionsGrpc(domain),
    ...membershipGrpc(domain),
    ...channelsGrpc(domain),
    ...premiumGrpc(domain),
    ...managedRolesGrpc(domain),
  } as ServiceImpl<typeof GuildsService>;
}
