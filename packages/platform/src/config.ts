import { z } from 'zod';

/** A config key problem, listed together with every other before the process exits. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

interface ConfigMeta {
  requiredInProduction?: Record<string, string>;
}

/**
 * Marks keys a process refuses to start without when NODE_ENV=production, each with the reason:
 * secrets every replica must share (a per-process random stand-in works for one process only),
 * and keys whose development default would send codes, links or mails to the log.
 */
export function requiredInProduction<S extends z.ZodType>(schema: S, keys: Record<string, string>): S {
  return schema.meta({ requiredInProduction: keys }) as S;
}

/** Marks one config key as required when NODE_ENV=production, wherever a schema includes it. */
export function neededInProduction<F extends z.ZodType>(field: F, why: string): F {
  return field.meta({ neededInProduction: why }) as F;
}

/** The keys `requiredInProduction` marked on a config schema, or `neededInProduction` on its fields, with their reasons. */
export function productionRequirements(schema: z.ZodType): Record<string, string> {
  const keys: Record<string, string> = {};
  let shape: Record<string, z.ZodType> = {};
  try {
    shape = configShape(schema);
  } catch {
    // Not an object schema: only the schema's own marks apply.
  }
  for (const [key, field] of Object.entries(shape)) {
    const why = (field.meta() as { neededInProduction?: string } | undefined)?.neededInProduction;
    if (why) keys[key] = why;
  }
  return { ...keys, ...((schema.meta() as ConfigMeta | undefined)?.requiredInProduction ?? {}) };
}

/** The fields of a config schema: an object, possibly refined or followed by a transform. */
export function configShape(schema: z.ZodType): Record<string, z.ZodType> {
  const def = schema._zod.def as { type: string; shape?: Record<string, z.ZodType>; in?: z.ZodType };
  if (def.type === 'object') return def.shape!;
  if (def.type === 'pipe') return configShape(def.in!);
  throw new Error(`not a config schema: ${def.type}`);
}

/**
 * Parses the environment once into a typed object. Every bad or missing key is collected, so an
 * operator fixes them all in one go. This is the only module that reads `process.env`.
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined> = process.env): z.output<S> {
  const problems: string[] = [];
  if (env.NODE_ENV === 'production')
    for (const [key, why] of Object.entries(productionRequirements(schema)))
      if (!env[key]) problems.push(`${key}: required when NODE_ENV=production (${why})`);
  const result = schema.safeParse(env);
  if (!result.success)
    for (const issue of result.error.issues) {
      const key = issue.path.join('.') || '(root)';
      problems.push(issue.code === 'invalid_type' && env[key] === undefined ? `${key}: required but not set` : `${key}: ${issue.message}`);
    }
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  return result.data;
}

/** Like parseConfig, but prints the problems and exits non-zero: for `main.ts`. */
export function loadConfig<S extends z.ZodType>(schema: S, env?: Record<string, string | undefined>): z.output<S> {
  try {
    return parseConfig(schema, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

// An empty value would coerce to 0, i.e. any free port: it is a bad value, not a port.
const port = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? Number.NaN : v),
  z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65535),
);
const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a ${protocols.join(' or ')} URL`,
  );

/**
 * Signs and checks every gRPC call between processes (Ed25519, PKCS8 PEM; service-calls.ts): every
 * process of a deployment (services, realtime, gateway) has the same one. Unset, a process makes
 * one of its own, which no other process accepts.
 */
const serviceTokenKey = neededInProduction(z.string().min(1).optional(), 'every process must sign and accept the same gRPC service tokens');

/** Keys shared by every process. */
export const baseConfig = {
  /** Log lines below this level are dropped. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `production` (the images set it) makes the keys marked below required. */
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
};

/** Keys of a service that owns a database, a Redis prefix and publishes on NATS. */
export const serviceConfig = {
  ...baseConfig,
  /** The HTTP port (the gateway forwards to it). */
  HTTP_PORT: port,
  /** The gRPC port other services call. */
  GRPC_PORT: port,
  /** The address the HTTP and gRPC servers bind to; 0.0.0.0 in a container. */
  HTTP_HOST: z.string().default('127.0.0.1'),
  /** An admin connection URL; the service creates and uses its own database `<DB_PREFIX>_<service>`. */
  DATABASE_URL: url(['postgres:', 'postgresql:']).default('postgres://postgres@127.0.0.1:5432/postgres'),
  /**
   * PostgreSQL connections this process may hold at once: its pool gets all but one, which the
   * outbox listener keeps. A share of the deployment's budget (scripts/processes.mjs gives each
   * service its own under `npm start`); the sum over every process and replica must stay within
   * the server's max_connections. A request finding the pool busy waits for a connection, up to 10 s, then answers 503.
   */
  DB_CONNECTIONS: z.coerce.number().int().min(2).max(1000).default(4),
  /** Names the service's database `<DB_PREFIX>_<service>` (a second stack on one server takes another). */
  DB_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/)
    .default('kith'),
  /** The Redis server; the service's keys all start with its REDIS_PREFIX. */
  REDIS_URL: url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
  /** The NATS server (JetStream on): domain events are published to and read from the EVENTS stream. */
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Verifies the identity the gateway signs for each request (Ed25519, SPKI PEM); scripts/gen-secrets.mjs makes the pair. */
  INTERNAL_TOKEN_PUBLIC_KEY: z.string().min(1, 'an Ed25519 public key (SPKI PEM) is required'),
  /** Signs this process's gRPC calls and checks every call it takes (Ed25519, PKCS8 PEM), the same in every process of a deployment; scripts/gen-secrets.mjs makes it. */
  SERVICE_TOKEN_KEY: serviceTokenKey,
};

export const configKeys = { port, url, serviceTokenKey };
