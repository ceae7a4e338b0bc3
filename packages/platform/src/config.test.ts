import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, baseConfig, configKeys, configShape, parseConfig, requiredInProduction, serviceConfig } from './config.js';

const schema = z.object(serviceConfig);
const minimal = { HTTP_PORT: '8101', GRPC_PORT: '50051', INTERNAL_TOKEN_PUBLIC_KEY: 'pem' };

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    parseConfig(schema, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('keys required in production', () => {
  const guarded = requiredInProduction(z.object({ ...serviceConfig, SHARED_KEY: z.string().min(32).optional() }), {
    SHARED_KEY: 'replicas must share it',
  });
  const problems = (env: Record<string, string>) => {
    try {
      parseConfig(guarded, env);
      return [];
    } catch (err) {
      return (err as ConfigError).problems;
    }
  };

  // The service key every service schema has is required in production too (marked on its field).
  const production = { ...minimal, NODE_ENV: 'production', SERVICE_TOKEN_KEY: 'pem' };

  it('when NODE_ENV=production and a marked key is unset or empty, then the config is refused naming the key and why', () => {
    const expected = ['SHARED_KEY: required when NODE_ENV=production (replicas must share it)'];
    expect(problems(production)).toEqual(expected);
    expect(problems({ ...production, SHARED_KEY: '' })).toContain(expected[0]);
  });

  it('when NODE_ENV=production and the key is set, or in development without it, then the config loads', () => {
    expect(problems({ ...production, SHARED_KEY: 'k'.repeat(32) })).toEqual([]);
    expect(parseConfig(guarded, minimal).SHARED_KEY).toBeUndefined();
  });

  it('when a key is marked on its field, then every schema that includes the field requires it in production', () => {
    expect(problems({ ...minimal, NODE_ENV: 'production', SHARED_KEY: 'k'.repeat(32) })).toEqual([
      'SERVICE_TOKEN_KEY: required when NODE_ENV=production (every process must sign and accept the same gRPC service tokens)',
    ]);
    expect(parseConfig(guarded, minimal).SERVICE_TOKEN_KEY).toBeUndefined();
  });

  it('when other keys are bad too, then every problem is listed together', () => {
    expect(problems({ ...production, HTTP_PORT: 'x' })).toEqual([
      'SHARED_KEY: required when NODE_ENV=production (replicas must share it)',
      'HTTP_PORT: must be a port number',
    ]);
  });

  it('when the schema is refined or transformed, then its fields are still found', () => {
    const object = z.object({ A: z.string() });
    expect(Object.keys(configShape(object.transform((c) => c)))).toEqual(['A']);
    expect(Object.keys(configShape(object.superRefine(() => undefined)))).toEqual(['A']);
  });
});

describe('parseConfig', () => {
  it('when only the required keys are set, then the rest take their defaults and ports are numbers', () => {
    expect(parseConfig(schema, minimal)).toEqual({
      LOG_LEVEL: 'info',
      NODE_ENV: 'development',
      HTTP_PORT: 8101,
      GRPC_PORT: 50051,
      HTTP_HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
      DB_CONNECTIONS: 4,
      DB_PREFIX: 'kith',
      REDIS_URL: 'redis://127.0.0.1:6379',
      NATS_URL: 'nats://127.0.0.1:4222',
      INTERNAL_TOKEN_PUBLIC_KEY: 'pem',
    });
  });

  it('when keys are set, then they override the defaults', () => {
    const config = parseConfig(schema, {
      ...minimal,
      LOG_LEVEL: 'debug',
      NODE_ENV: 'production',
      SERVICE_TOKEN_KEY: 'pem',
      DATABASE_URL: 'postgresql://db.internal:5433/admin',
      REDIS_URL: 'rediss://cache.internal:6380',
      DB_PREFIX: 'kith_ci_2',
    });
    expect(config).toMatchObject({
      LOG_LEVEL: 'debug',
      NODE_ENV: 'production',
      DATABASE_URL: 'postgresql://db.internal:5433/admin',
      REDIS_URL: 'rediss://cache.internal:6380',
      DB_PREFIX: 'kith_ci_2',
    });
  });

  it('when several keys are missing or bad, then every one of them is listed at once', () => {
    const problems = problemsOf({
      HTTP_PORT: 'eighty',
      LOG_LEVEL: 'loud',
      DATABASE_URL: 'mysql://127.0.0.1/x',
      REDIS_URL: 'not a url',
      DB_PREFIX: 'Bad-Prefix',
    });
    const keys = problems.map((p) => p.split(':')[0]);
    expect(keys.sort()).toEqual([
      'DATABASE_URL',
      'DB_PREFIX',
      'GRPC_PORT',
      'HTTP_PORT',
      'INTERNAL_TOKEN_PUBLIC_KEY',
      'LOG_LEVEL',
      'REDIS_URL',
    ]);
    expect(problems).toContain('GRPC_PORT: required but not set');
    expect(problems).toContain('INTERNAL_TOKEN_PUBLIC_KEY: required but not set');
    expect(problems).toContain('DATABASE_URL: must be a postgres: or postgresql: URL');
    expect(problems).toContain('REDIS_URL: must be a redis: or rediss: URL');
  });

  it('when a port is out of range or not an integer, then it is a problem', () => {
    const problems = problemsOf({ ...minimal, HTTP_PORT: '65536', GRPC_PORT: '80.5' });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^HTTP_PORT: /);
    expect(problems[1]).toMatch(/^GRPC_PORT: /);
  });

  it('when a port is set but empty, then it is a problem rather than port 0 (any free port)', () => {
    const problems = problemsOf({ ...minimal, HTTP_PORT: '', GRPC_PORT: '  ' });
    expect(problems).toEqual(['HTTP_PORT: must be a port number', 'GRPC_PORT: must be a port number']);
  });

  it('when a port key with a default is unset, then the default applies', () => {
    const withDefault = z.object({ ...baseConfig, PORT: configKeys.port.default(8080) });
    expect(parseConfig(withDefault, {}).PORT).toBe(8080);
    expect(parseConfig(withDefault, { PORT: '0' }).PORT).toBe(0);
  });

  it('when the error is raised, then its message lists each problem on its own line', () => {
    try {
      parseConfig(schema, {});
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toBe(
        'invalid configuration:\n' +
          '  - HTTP_PORT: required but not set\n' +
          '  - GRPC_PORT: required but not set\n' +
          '  - INTERNAL_TOKEN_PUBLIC_KEY: required but not set',
      );
    }
  });
});

describe('loadConfig', () => {
  const platformDir = fileURLToPath(new URL('..', import.meta.url));
  const script = [
    "import { z } from 'zod';",
    "import { loadConfig, serviceConfig } from '@kith/platform';",
    'const config = loadConfig(z.object(serviceConfig));',
    "process.stdout.write('loaded ' + config.HTTP_PORT);",
  ].join('\n');
  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: platformDir,
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });

  it('when keys are bad or missing, then the process exits 1 and stderr names every key', () => {
    const { status, stdout, stderr } = run({ HTTP_PORT: 'x', LOG_LEVEL: 'loud', REDIS_URL: 'http://127.0.0.1' });
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('invalid configuration:');
    for (const key of ['HTTP_PORT', 'GRPC_PORT', 'INTERNAL_TOKEN_PUBLIC_KEY', 'LOG_LEVEL', 'REDIS_URL'])
      expect(stderr).toMatch(new RegExp(`^  - ${key}: `, 'm'));
  });

  it('when the environment is valid, then it returns the config and the process carries on', () => {
    const { status, stdout } = run({ HTTP_PORT: '8123', GRPC_PORT: '0', INTERNAL_TOKEN_PUBLIC_KEY: 'pem' });
    expect(status).toBe(0);
    expect(stdout).toBe('loaded 8123');
  });
});
