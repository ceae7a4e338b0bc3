import { onShutdown } from '@kith/platform';
import { startRealtime } from './app.js';
import { loadRealtimeConfig } from './config.js';

const realtime = await startRealtime(loadRealtimeConfig());
onShutdown(realtime.logger, realtime.closers);
