import { PgChannelStore } from '../store/channel.store.js';
import { PgDmStore } from '../store/dm.store.js';
import { ChannelApi } from './channel.api.js';
import { GuildChannelEvents } from './channel.events.js';
import { ChannelService } from './channel.service.js';
import { ThreadService } from './channel.threads.js';
import type { GuildsDeps } from './deps.js';
import { DmService } from './dm.service.js';

const built = new WeakMap<GuildsDeps, ChannelApi>();

/** The channel services over the service's deps, built once (HTTP and gRPC share them). */
export function channelModule(deps: GuildsDeps): ChannelApi {
  let api = built.get(deps);
  if (!api) {
    const store = new PgChannelStore(deps.db, deps.ids);
    const events = new GuildChannelEvents(store, deps.access, deps.outbox);
    const channels = new ChannelService(store, deps.access, events);
    const threads = new ThreadService(store, deps.access, events, channels);
    const dmStore = new PgDmStore();
    const dms = new DmService(store, dmStore, deps.auth, deps.outbox);
    api = new ChannelApi(store, channels, threads, dms, dmStore);
    built.set(deps, api);
  }
  return api;
}
