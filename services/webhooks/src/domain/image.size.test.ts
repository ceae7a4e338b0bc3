import { describe, expect, it } from 'vitest';
import { imageSize } from './image.size.js';

const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

describe('imageSize', () => {
  it('when given a PNG, a GIF or a JPEG header, then its size; anything else has none', () => {
    expect(imageSize(PNG_1X1)).toEqual({ width: 1, height: 1 });
    const gif = Buffer.from('GIF89a\x20\x00\x10\x00', 'latin1');
    expect(imageSize(gif)).toEqual({ width: 32, height: 16 });
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 17, 8, 0, 48, 0, 64, 3, 0, 0, 0]);
    expect(imageSize(jpeg)).toEqual({ width: 64, height: 48 });
    expect(imageSize(Buffer.from('hello world, not an image'))).toBeUndefined();
  });
});
