import {
  DiscardPolicy,
  NatsError,
  RetentionPolicy,
  StorageType,
  nanos,
  type NatsConnection,
  type StreamConfig,
  type StreamInfo,
} from 'nats';
import { EVENTS_STREAM, EVENTS_SUBJECTS } from './events.js';

export interface EventStreamOptions {
  /** How long the stream keeps an event: how far back a consumer that was away can catch up. */
  maxAgeMs?: number;
  /**
   * How long the stream remembers a `Nats-Msg-Id`. A relay that crashed after publishing but
   * before marking its rows sent republishes them; within this window the copies are dropped.
   */
  duplicateWindowMs?: number;
  /** How long to wait for each JetStream API answer. */
  requestTimeoutMs?: number;
}

/** JetStream's error code for "stream name already in use with a different configuration". */
const STREAM_NAME_IN_USE = 10058;
/**
 * "subjects overlap with an existing stream": also what a create answers while another process's
 * create of the same stream is still in flight (seen with five at once on a fresh server).
 */
const SUBJECTS_OVERLAP = 10065;
const STREAM_NOT_FOUND = 10059;

export function eventStreamConfig({
  maxAgeMs = 24 * 3_600_000,
  duplicateWindowMs = 120_000,
}: EventStreamOptions = {}): Partial<StreamConfig> {
  return {
    name: EVENTS_STREAM,
    subjects: [EVENTS_SUBJECTS],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_age: nanos(maxAgeMs),
    duplicate_window: nanos(duplicateWindowMs),
  };
}

/**
 * Creates the EVENTS stream, or brings an existing one to this configuration. Safe when several
 * processes call it at once: adding an identical stream succeeds, and a differing one is updated
 * to the same configuration by whoever gets there, any number of times.
 */
export async function ensureEventStream(nc: NatsConnection, options: EventStreamOptions = {}): Promise<StreamInfo> {
  const jsm = await nc.jetstreamManager(options.requestTimeoutMs ? { timeout: options.requestTimeoutMs } : {});
  const config = eventStreamConfig(options);
  try {
    return await jsm.streams.add(config);
  } catch (err) {
    const code = err instanceof NatsError ? err.api_error?.err_code : undefined;
    if (code !== STREAM_NAME_IN_USE && code !== SUBJECTS_OVERLAP) throw err;
    try {
      return await jsm.streams.update(EVENTS_STREAM, config);
    } catch (updateErr) {
      // No EVENTS stream after all: some other stream holds the subjects, which stays an error.
      if (updateErr instanceof NatsError && updateErr.api_error?.err_code === STREAM_NOT_FOUND) throw err;
      throw updateErr;
    }
  }
}
