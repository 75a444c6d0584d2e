/** ITU-T G.711 expansion tables, scaled to [-1, 1) like 16-bit PCM (divide by 32768). */

function expandMuLaw(byte: number): number {
  const u = ~byte & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 0x07)) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
}

function expandALaw(byte: number): number {
  const a = byte ^ 0x55;
  const exponent = (a >> 4) & 0x07;
  const mantissa = a & 0x0f;
  const magnitude = exponent === 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1);
  // A-law stores the sign inverted relative to mu-law: a set bit is positive.
  return a & 0x80 ? magnitude : -magnitude;
}

function table(expand: (byte: number) => number): Float32Array {
  const out = new Float32Array(256);
  for (let i = 0; i < 256; i++) out[i] = expand(i) / 32768;
  return out;
}

export const MU_LAW_TABLE: Float32Array = table(expandMuLaw);
export const A_LAW_TABLE: Float32Array = table(expandALaw);
