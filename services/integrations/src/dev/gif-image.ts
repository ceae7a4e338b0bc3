/**
 * Small animated GIFs for the local development providers, so a newcomer's client shows moving
 * pictures without any provider key. The LZW stream is deliberately naive: a clear code before
 * every two pixels keeps the code size at 3 bits, so no dictionary logic is needed.
 */

type Rgb = readonly [number, number, number];

const CLEAR = 4;
const END = 5;
const CODE_BITS = 3;

class BitWriter {
  private readonly bytes: number[] = [];
  private current = 0;
  private filled = 0;

  write(code: number): void {
    for (let i = 0; i < CODE_BITS; i++) {
      this.current |= ((code >> i) & 1) << this.filled;
      if (++this.filled === 8) this.flush();
    }
  }

  private flush(): void {
    this.bytes.push(this.current);
    this.current = 0;
    this.filled = 0;
  }

  finish(): number[] {
    if (this.filled > 0) this.flush();
    return this.bytes;
  }
}

function lzw(pixels: Uint8Array): number[] {
  const writer = new BitWriter();
  for (let i = 0; i < pixels.length; i += 2) {
    writer.write(CLEAR);
    writer.write(pixels[i]!);
    if (i + 1 < pixels.length) writer.write(pixels[i + 1]!);
  }
  writer.write(END);
  const data = writer.finish();
  // Sub-blocks of at most 255 bytes, then the terminator.
  const out = [2];
  for (let i = 0; i < data.length; i += 255) {
    const block = data.slice(i, i + 255);
    out.push(block.length, ...block);
  }
  out.push(0);
  return out;
}

const u16 = (n: number): number[] => [n & 0xff, (n >> 8) & 0xff];

/** One frame: a square of the foreground colour at a position that moves each frame. */
function frame(size: number, step: number, frames: number): Uint8Array {
  const pixels = new Uint8Array(size * size);
  const box = Math.max(2, Math.floor(size / 3));
  const offset = Math.floor(((size - box) * step) / Math.max(1, frames - 1));
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      const inBox = x >= offset && x < offset + box && y >= offset && y < offset + box;
      const border = x === 0 || y === 0 || x === size - 1 || y === size - 1;
      pixels[y * size + x] = inBox ? 1 : border ? 3 : 0;
    }
  return pixels;
}

/** A looping animated GIF of `size`×`size` pixels in the given colours. */
export function animatedGif(size: number, background: Rgb, foreground: Rgb, frames = 4): Buffer {
  const palette = [...background, ...foreground, 255, 255, 255, 0, 0, 0];
  const bytes: number[] = [
    ...Buffer.from('GIF89a'),
    ...u16(size),
    ...u16(size),
    0xf1, // global colour table of 4 entries
    0,
    0,
    ...palette,
    // NETSCAPE2.0: loop forever.
    0x21,
    0xff,
    0x0b,
    ...Buffer.from('NETSCAPE2.0'),
    0x03,
    0x01,
    0x00,
    0x00,
    0x00,
  ];
  for (let f = 0; f < frames; f++) {
    bytes.push(0x21, 0xf9, 0x04, 0x00, ...u16(25), 0x00, 0x00); // 250 ms per frame
    bytes.push(0x2c, 0, 0, 0, 0, ...u16(size), ...u16(size), 0x00);
    bytes.push(...lzw(frame(size, f, frames)));
  }
  bytes.push(0x3b);
  return Buffer.from(bytes);
}

/** A stable colour per GIF id. */
export function colourOf(id: string): Rgb {
  let h = 0;
  for (const c of id) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return [64 + (h & 0x7f), 64 + ((h >> 8) & 0x7f), 64 + ((h >> 16) & 0x7f)];
}
