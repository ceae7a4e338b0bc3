import { onShutdown } from '@kith/platform';
import { startInvites } from './app.js';
import { loadInvitesConfig } from './config.js';

const invites = await startInvites(loadInvitesConfig());
onShutdown(invites.logger, invites.closers);
