import jsQR from 'jsqr';

/**
 * Reads the QR code in an SVG of the shape the auth API returns (a viewBox and a path of
 * `M{x} {y}h1v1h-1z` unit squares) as a scanner would: rasterised, then decoded by jsQR. The
 * text it holds, or null when no code can be read.
 */
export function scanQrSvg(svg: string): string | null {
  const side = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);
  if (!Number.isInteger(side)) return null;
  const scale = 4;
  const width = side * scale;
  const pixels = new Uint8ClampedArray(width * width * 4).fill(255);
  for (const [, x, y] of svg.matchAll(/M(\d+) (\d+)h1v1h-1z/g)) {
    for (let dy = 0; dy < scale; dy += 1) {
      for (let dx = 0; dx < scale; dx += 1) {
        const offset = ((Number(y) * scale + dy) * width + Number(x) * scale + dx) * 4;
        pixels.fill(0, offset, offset + 3);
      }
    }
  }
  // A CommonJS module: its types name the function `default`, which it also is at run time.
  return jsQR.default(pixels, width, width)?.data ?? null;
}
