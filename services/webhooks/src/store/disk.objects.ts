import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { ObjectStore, StoredObject } from '../domain/ports.js';

/**
 * Attachments in a directory: the development default (`npm start` needs no object store). Keys
 * are the service's own (`attachments/<channel>/<id>/<name>`); each object has its content type
 * beside it.
 */
export class DiskObjectStore implements ObjectStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async putFile(key: string, path: string, _size: number, contentType: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(path, target);
    await writeFile(`${target}.type`, contentType);
  }

  async get(key: string): Promise<StoredObject | undefined> {
    const path = this.pathOf(key);
    try {
      const [info, contentType] = await Promise.all([stat(path), readFile(`${path}.type`, 'utf8')]);
      return { body: createReadStream(path), contentType, size: info.size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async delete(keys: string[]): Promise<void> {
    for (const key of keys) {
      const path = this.pathOf(key);
      await rm(path, { force: true });
      await rm(`${path}.type`, { force: true });
    }
  }

  /** A key never leaves the root (keys are built by the service, this is a second guard). */
  private pathOf(key: string): string {
    const path = resolve(join(this.root, key));
    if (!path.startsWith(this.root + sep)) throw new Error('object key outside the store');
    return path;
  }
}
