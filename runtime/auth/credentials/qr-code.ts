import QRCode from 'qrcode';

/**
 * The QR code of the TOTP enrolment URI, as an SVG like Supabase Auth's. The symbol (ISO/IEC
 * 18004: version, segments, Reed-Solomon, mask) comes from `qrcode`; the SVG is written here
 * because qrcode's own writes its colours as `#rrggbb`, and auth-js puts the SVG into a data URI
 * without percent-encoding it, where a `#` would cut the image short.
 */

export type QrErrorCorrection = 'L' | 'M' | 'Q' | 'H';

/** Dark modules, `[y][x]`, without the quiet zone. */
export type QrMatrix = readonly (readonly boolean[])[];

/** The QR code of `text` at error-correction level `ecl`; throws when the text does not fit in version 40. */
export function encodeQr(text: string, ecl: QrErrorCorrection): QrMatrix {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: ecl });
  return Array.from({ length: modules.size }, (_, y) => Array.from({ length: modules.size }, (_, x) => Boolean(modules.get(y, x))));
}

/** The four-module light border scanners need around the code. */
const QUIET_ZONE = 4;

/** An SVG of the code: one path of dark squares on a light square, free of `#` and `%`. */
export function qrSvg(modules: QrMatrix, moduleSize = 3): string {
  const side = modules.length + QUIET_ZONE * 2;
  let path = '';
  modules.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) path += `M${x + QUIET_ZONE} ${y + QUIET_ZONE}h1v1h-1z`;
    });
  });
  const pixels = side * moduleSize;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${pixels}" height="${pixels}" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges">` +
    `<rect width="${side}" height="${side}" fill="white"/><path fill="black" d="${path}"/></svg>`
  );
}
