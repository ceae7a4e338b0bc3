import { hostname } from 'node:os';
import { z } from 'zod';
import { baseConfig, configKeys, loadConfig, requiredInProduction, serviceConfig } from '@kith/platform';

const ms = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const realtimeConfigFields = z
  .object({
    ...baseConfig,
    HTTP_PORT: configKeys.port.default(8108),
    HTTP_HOST: serviceConfig.HTTP_HOST,
    /** The socket URL clients are given by `GET /gateway` and in READY's `resume_gateway_url`. */
    PUBLIC_GATEWAY_URL: configKeys.url(['ws:', 'wss:']).default('ws://127.0.0.1:8080/gateway'),
    AUTH_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
    /** Where READY's relationships come from; unset where the social service is not deployed. */
    SOCIAL_GRPC_ADDR: z.string().optional(),
    /** Where READY's guilds and private channels, and each session's guild ids, come from. */
    GUILDS_GRPC_ADDR: z.string().default('127.0.0.1:50054'),
    REDIS_URL: serviceConfig.REDIS_URL,
    REDIS_PREFIX: z.string().default('kith:realtime:'),
    NATS_URL: serviceConfig.NATS_URL,
    /**
     * Names this replica's durable event consumer: a replica restarted under the same id resumes
     * the stream where it stopped. Default: host name and HTTP port.
     */
    REPLICA_ID: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only (it names a NATS consumer)')
      .optional(),
    /** The heartbeat interval op 10 Hello gives clients. */
    HEARTBEAT_INTERVAL_MS: ms(41_250),
    /** How long a dropped session can still be resumed. */
    RESUME_WINDOW_MS: ms(180_000),
    /** How many of a session's latest frames are kept for a client that lost the tail of what was sent. */
    RESUME_BUFFER_FRAMES: ms(250),
    /** On shutdown, how long clients get to leave after op 7 Reconnect before their sockets are closed. */
    SHUTDOWN_GRACE_MS: ms(2_000),
    /**
     * A replica's durable consumer is deleted by NATS after this long unused, so replicas that
     * never come back (scaled down, renamed pods) do not pile up on the stream.
     */
    EVENTS_CONSUMER_INACTIVE_MS: ms(86_400_000),
    /**
     * Handled events are acknowledged to NATS together, at most this long after they were handled
     * (an ack is a message, as costly as the event's own delivery). A crash loses at most this
     * much of acknowledging: those events are delivered again and dropped as already sent.
     */
    EVENTS_ACK_DELAY_MS: ms(100),
    /**
     * How many of each service's latest event ids are remembered to drop the copies a relay
     * publishes again after the stream's duplicate window (a copy follows its original within
     * about two of that service's relay batches, whatever the outage's length).
     */
    EVENTS_DEDUPE_IDS_PER_SERVICE: ms(10_000),
    INTERNAL_TOKEN_PUBLIC_KEY: serviceConfig.INTERNAL_TOKEN_PUBLIC_KEY,
    /** Signs realtime's gRPC calls as every process of the deployment does (Ed25519, PKCS8 PEM). */
    SERVICE_TOKEN_KEY: serviceConfig.SERVICE_TOKEN_KEY,
  })
  .transform((config) => ({
    ...config,
    REPLICA_ID: config.REPLICA_ID ?? `${hostname().replace(/[^A-Za-z0-9_-]/g, '_')}-${config.HTTP_PORT}`,
  }));

export const realtimeConfigSchema = requiredInProduction(realtimeConfigFields, {
  REPLICA_ID: 'a replica restarted under the same id resumes its event consumer; a container host name changes on every restart',
  PUBLIC_GATEWAY_URL: 'clients are told to connect there',
});

export type RealtimeConfig = z.output<typeof realtimeConfigSchema>;

export const loadRealtimeConfig = (env?: Record<string, string | undefined>): RealtimeConfig => loadConfig(realtimeConfigSchema, env);
