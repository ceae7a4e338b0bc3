import { open } from 'node:fs/promises';
import type { SnowflakeGenerator } from '@kith/platform';
import { imageSize } from './image.size.js';
import type { AttachmentView } from './message.types.js';
import type { ObjectStore, StoredObject } from './ports.js';

/** A file of a request, written whole to a local temporary file. */
export interface ReceivedFile {
  /** `n` of its `files[n]` field: what `attachments[].id` names it by. */
  index: string;
  path: string;
  size: number;
  filename: string;
  contentType: string;
}

/** A stored file, its `index` kept until the message's `attachments` describe it. */
export interface UploadedFile {
  index: string;
  key: string;
  attachment: AttachmentView;
}

/** What a filename becomes in a URL and a key: no path, no characters a URL would need escaped. */
export function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\.+/, '')
    .slice(0, 200);
  return cleaned || 'unknown';
}

/** Attachments: into the object store, with the URL clients fetch them from. */
export class AttachmentsService {
  constructor(
    private readonly objects: ObjectStore,
    private readonly ids: SnowflakeGenerator,
    /** The origin attachments are served from (the edge): `<cdn>/attachments/<channel>/<id>/<name>`. */
    private readonly cdnUrl: string,
    /** Where keys go when the store cannot remove them now (the deletion queue, swept later). */
    private readonly removeLater: (keys: string[]) => Promise<void> = () => Promise.reject(new Error('no deletion queue')),
  ) {}

  async upload(channelId: string, file: ReceivedFile): Promise<UploadedFile> {
    const id = this.ids.next();
    const filename = safeFilename(file.filename);
    const key = `attachments/${channelId}/${id}/${filename}`;
    const size = file.contentType.startsWith('image/') ? await sizeOf(file.path) : undefined;
    await this.objects.putFile(key, file.path, file.size, file.contentType);
    const url = `${this.cdnUrl}/${key}`;
    return {
      index: file.index,
      key,
      attachment: { id, filename, size: file.size, url, proxy_url: url, content_type: file.contentType, ...(size ?? {}) },
    };
  }

  /** Removes what a request stored before it failed (or has it removed later, should the store not answer now). */
  async discard(files: UploadedFile[]): Promise<void> {
    const keys = files.map((f) => f.key);
    if (keys.length === 0) return;
    try {
      await this.objects.delete(keys);
    } catch {
      await this.removeLater(keys);
    }
  }

  get(channelId: string, id: string, filename: string): Promise<StoredObject | undefined> {
    return this.objects.get(`attachments/${channelId}/${id}/${safeFilename(filename)}`);
  }
}

async function sizeOf(path: string): Promise<{ width: number; height: number } | undefined> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(65_536);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return imageSize(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}
