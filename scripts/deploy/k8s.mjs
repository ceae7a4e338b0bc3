// Checks of rendered Kubernetes objects: against the API schemas, and against the processes list.

/** `kith/auth:dev` → { name: 'kith/auth', tag: 'dev' }; no tag is `latest`. */
export function imageParts(image) {
  const at = image.lastIndexOf(':');
  return at > image.lastIndexOf('/') ? { name: image.slice(0, at), tag: image.slice(at + 1) } : { name: image, tag: 'latest' };
}

/**
 * Each object against its kind's schema (kubernetes-models, generated from the Kubernetes OpenAPI
 * definitions): types, required fields, enums and formats.
 */
export async function validateObjects(objects) {
  const problems = [];
  for (const object of objects) {
    const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : [undefined, object.apiVersion];
    const what = `${object.kind} ${object.metadata?.name}`;
    let Model;
    try {
      Model = (await import(`kubernetes-models/${group ? `${group}/` : ''}${version}/${object.kind}`))[object.kind];
    } catch {
      problems.push(`${what}: no schema for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      new Model(normalised(object)).validate();
    } catch (err) {
      problems.push(`${what}: ${err.message}`);
    }
  }
  return problems;
}

/**
 * kustomize folds long base64 Secret values over several lines; the API server's decoder skips the
 * line breaks, the schema's `byte` format does not.
 */
function normalised(object) {
  if (object.kind !== 'Secret' || !object.data) return object;
  return { ...object, data: Object.fromEntries(Object.entries(object.data).map(([k, v]) => [k, String(v).replace(/\s+/g, '')])) };
}

const find = (objects, kind, name) => objects.find((o) => o.kind === kind && o.metadata?.name === name);

/** Where an env var's value comes from, if it names a ConfigMap or Secret key that does not exist. */
function danglingRef(objects, { valueFrom }) {
  for (const [kind, ref] of [
    ['ConfigMap', valueFrom?.configMapKeyRef],
    ['Secret', valueFrom?.secretKeyRef],
  ]) {
    if (!ref) continue;
    const source = find(objects, kind, ref.name);
    if (!source) return `${kind} ${ref.name} does not exist`;
    if (!Object.hasOwn({ ...source.data, ...source.stringData }, ref.key)) return `${kind} ${ref.name} has no key ${ref.key}`;
  }
  return undefined;
}

/** Per process: workload, image, labels, probes, Service and the keys it must be given. */
export function checkManifests(objects, list, required) {
  const problems = [];
  for (const p of list) {
    const workload = objects.find((o) => (o.kind === 'Deployment' || o.kind === 'StatefulSet') && o.metadata?.name === p.name);
    if (!workload) {
      problems.push(`${p.name}: no Deployment or StatefulSet`);
      continue;
    }
    const labels = workload.spec.template.metadata?.labels ?? {};
    // The network policies select on these: services take gRPC from each other, only the edge takes outside traffic.
    const tier = p.name === 'gateway' ? 'edge' : 'service';
    if (labels.app !== p.name || labels.tier !== tier) problems.push(`${p.name}: pod labels must be app: ${p.name}, tier: ${tier}`);
    const container = workload.spec.template.spec.containers[0];
    const { name, tag } = imageParts(container.image);
    if (name !== `kith/${p.name}`) problems.push(`${p.name}: image ${container.image} is not kith/${p.name}`);
    if (tag === 'latest') problems.push(`${p.name}: image ${container.image} is not retagged (latest is pulled from a registry)`);
    if (!container.readinessProbe || !container.livenessProbe) problems.push(`${p.name}: needs a readiness and a liveness probe`);
    const env = new Map((container.env ?? []).map((e) => [e.name, e]));
    for (const { key, why } of required.get(p.name)) {
      const entry = env.get(key);
      if (!entry || (entry.value === undefined && !entry.valueFrom) || entry.value === '')
        problems.push(`${p.name}: ${key} is not set (${why})`);
    }
    for (const entry of env.values()) {
      const dangling = danglingRef(objects, entry);
      if (dangling) problems.push(`${p.name}: ${entry.name} comes from nowhere: ${dangling}`);
    }
    const service = find(objects, 'Service', p.name);
    if (!service || service.spec.selector?.app !== p.name) problems.push(`${p.name}: no Service selecting app: ${p.name}`);
  }
  return problems;
}
