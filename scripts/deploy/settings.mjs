// The settings of each process, read from its built config schema (`<dir>/dist/config.js`, the one
// export named `…ConfigSchema`): every key with its default, whether it must be set, and whether
// the process refuses to start without it in production (and why).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { configShape, productionRequirements } from '@kith/platform';

export async function configSchemaOf(root, dir) {
  const mod = await import(pathToFileURL(join(root, dir, 'dist/config.js')).href);
  const schemas = Object.entries(mod).filter(([name]) => name.endsWith('ConfigSchema'));
  if (schemas.length !== 1) throw new Error(`${dir}/src/config.ts must export one …ConfigSchema (found ${schemas.length})`);
  return schemas[0][1];
}

/** One row per key: `default` is the value an unset key takes (undefined: stays unset). */
export function settingsOf(schema) {
  const production = productionRequirements(schema);
  return Object.entries(configShape(schema)).map(([key, field]) => {
    const unset = field.safeParse(undefined);
    return {
      key,
      required: !unset.success,
      default: unset.success ? unset.data : undefined,
      production: production[key],
    };
  });
}

/** For each process name, the keys it cannot start without in production, with why. */
export async function requiredKeysByProcess(root, list) {
  const byProcess = new Map();
  for (const p of list) {
    const settings = settingsOf(await configSchemaOf(root, p.dir));
    byProcess.set(
      p.name,
      settings.filter((s) => s.required || s.production).map((s) => ({ key: s.key, why: s.production ?? 'required, no default' })),
    );
  }
  return byProcess;
}
