/** Width and height of a PNG, GIF, JPEG or WebP image from its first bytes; undefined for anything else. */
export function imageSize(head: Buffer): { width: number; height: number } | undefined {
  if (head.length >= 24 && head.readUInt32BE(0) === 0x89504e47) return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
  if (head.length >= 10 && head.toString('latin1', 0, 3) === 'GIF') return { width: head.readUInt16LE(6), height: head.readUInt16LE(8) };
  if (head.length >= 30 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') return webpSize(head);
  if (head.length >= 4 && head[0] === 0xff && head[1] === 0xd8) return jpegSize(head);
  return undefined;
}

function webpSize(b: Buffer): { width: number; height: number } | undefined {
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  return undefined;
}

/** Walks the JPEG markers to the first start-of-frame, which holds the size. */
function jpegSize(b: Buffer): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    const length = b.readUInt16BE(at + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) };
    at += 2 + length;
  }
  return undefined;
}
