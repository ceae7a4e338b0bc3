import type { Logger } from './logger.js';

export type Closer = () => Promise<unknown>;

/**
 * Graceful shutdown on SIGTERM/SIGINT: run the closers in order (stop accepting, drain, close
 * pools), then exit. A second signal or a hung closer forces the exit.
 */
export function onShutdown(logger: Logger, closers: Closer[], timeoutMs = 15_000): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown timed out');
      process.exit(1);
    }, timeoutMs);
    force.unref();
    let code = 0;
    for (const close of closers) {
      try {
        await close();
      } catch (err) {
        code = 1;
        logger.error({ err }, 'error during shutdown');
      }
    }
    logger.info('stopped');
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    process.exit(code);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
