import { createHash } from 'node:crypto';
import { ApiError } from '@kith/platform';

export interface DecodedImage {
  hash: string;
  contentType: string;
  data: Buffer;
}

/** The image formats an icon may be, told by their first bytes (a data URI's type is only a claim). */
const SIGNATURES: { type: string; matches: (b: Buffer) => boolean }[] = [
  { type: 'image/png', matches: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { type: 'image/jpeg', matches: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', matches: (b) => b.subarray(0, 4).toString('latin1') === 'GIF8' },
  { type: 'image/webp', matches: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP' },
];

const invalid = () => ApiError.form({ icon: { code: 'IMAGE_INVALID', message: 'Invalid image data' } });

/** A data URI (`data:image/png;base64,...`) → the image, its hash as the platform forms one (md5 hex, `a_` for animated GIFs). */
export function decodeIcon(dataUri: string): DecodedImage {
  const match = /^data:(image\/[a-z]+);base64,([A-Za-z0-9+/]*={0,2})$/.exec(dataUri);
  if (!match) throw invalid();
  const data = Buffer.from(match[2]!, 'base64');
  const kind = SIGNATURES.find((s) => s.matches(data));
  if (!kind || data.length < 12) throw invalid();
  const digest = createHash('md5').update(data).digest('hex');
  return { hash: kind.type === 'image/gif' ? `a_${digest}` : digest, contentType: kind.type, data };
}

/** The file names an icon is served under: its hash with an extension of the format asked for. */
export const ICON_FILE = /^(a_)?[0-9a-f]{32}\.(png|jpe?g|webp|gif)$/;
