import { createHash } from 'node:crypto';

/**
 * Images arrive as data URIs. Without an image store here, an object keeps a stable hash of its
 * image as the icon/banner/splash hash the platform's objects carry; null removes it.
 */
export function imageHash(image: string | null): string | null;
export function imageHash(image: string | null | undefined): string | null | undefined;
export function imageHash(image: string | null | undefined): string | null | undefined {
  return image === undefined || image === null ? image : createHash('md5').update(image).digest('hex');
}
