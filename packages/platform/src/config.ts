import { z } from 'zod';

/** A config key problem, listed together with every other before the process exits. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once into a typed object. Every bad or missing key is collected, so an
 * operator fixes them all in one go. This is the only module that reads `process.env`.
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined> = process.env): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const key = issue.path.join('.') || '(root)';
    return issue.code === 'invalid_type' && env[key] === undefined ? `${key}: required but not set` : `${key}: ${issue.message}`;
  });
  throw new ConfigError(problems);
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

/** Keys shared by every process. */
export const baseConfig = {
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
};

/** Keys of a service that owns a database, a Redis prefix and publishes on NATS. */
export const serviceConfig = {
  ...baseConfig,
  HTTP_PORT: port,
  GRPC_PORT: port,
  HTTP_HOST: z.string().default('127.0.0.1'),
  /** An admin connection URL; the service creates and uses its own database `<DB_PREFIX>_<service>`. */
  DATABASE_URL: url(['postgres:', 'postgresql:']).default('postgres://postgres@127.0.0.1:5432/postgres'),
  DB_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/)
    .default('kith'),
  REDIS_URL: url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  INTERNAL_TOKEN_PUBLIC_KEY: z.string().min(1, 'an Ed25519 public key (SPKI PEM) is required'),
};

export const configKeys = { port, url };
