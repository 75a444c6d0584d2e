/** Fundamental frequency range searched: low male to high female speaking voices. */
const MIN_HZ = 70;
const MAX_HZ = 400;
const FRAME_S = 0.04;
const HOP_S = 0.01;
/** Normalised autocorrelation a frame's best lag must reach to count as voiced. */
const VOICED = 0.5;
/** A lag within this share of the best score counts as a peak. */
const OCTAVE_GUARD = 0.9;

/**
 * Median F0 (Hz) of the voiced frames of `samples[from, to)`, by normalised autocorrelation;
 * null when no frame is voiced. Model-free: enough to tell a low voice from a high one.
 */
export function medianPitch(samples: Float32Array, sampleRate: number, from: number, to: number): number | null {
  const frame = Math.round(FRAME_S * sampleRate);
  const hop = Math.round(HOP_S * sampleRate);
  const minLag = Math.floor(sampleRate / MAX_HZ);
  const maxLag = Math.ceil(sampleRate / MIN_HZ);
  const pitches: number[] = [];
  for (let start = Math.max(0, from); start + frame + maxLag <= Math.min(samples.length, to + maxLag); start += hop) {
    let energy = 0;
    for (let i = 0; i < frame; i++) energy += samples[start + i]! ** 2;
    if (energy / frame < 1e-5) continue;
    const scores = new Float64Array(maxLag + 1);
    let best = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let cross = 0;
      let lagged = 0;
      for (let i = 0; i < frame; i++) {
        const y = samples[start + i + lag]!;
        cross += samples[start + i]! * y;
        lagged += y * y;
      }
      scores[lag] = cross / Math.sqrt(energy * lagged || 1);
      best = Math.max(best, scores[lag]!);
    }
    // Multiples of the period correlate as well as the period itself: take the first peak near the best.
    let bestLag = minLag;
    for (let lag = minLag; lag <= maxLag; lag++) {
      if (scores[lag]! >= OCTAVE_GUARD * best && scores[lag]! >= (scores[lag - 1] ?? 0) && scores[lag]! >= (scores[lag + 1] ?? 0)) {
        bestLag = lag;
        break;
      }
    }
    if (best >= VOICED) pitches.push(sampleRate / bestLag);
  }
  if (pitches.length === 0) return null;
  pitches.sort((a, b) => a - b);
  return pitches[Math.floor(pitches.length / 2)]!;
}
