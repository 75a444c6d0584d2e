import { expect } from 'vitest';
import type { CallAnalysis } from '../../../../runtime/calls/analysis/result.js';

/** One analysis frame: lossy codecs may move an edge by at most this much. */
export const FRAME_S = 0.02;

/**
 * Asserts the known answers of `referenceCall()`. `tolerance` 0 means exact (lossless formats);
 * lossy formats get one frame. Counts (turns, interruptions) are exact either way.
 */
export function expectReferenceTimings(result: CallAnalysis, tolerance: number): void {
  const near = (actual: number | null | undefined, expected: number): void => {
    expect(actual).not.toBeNull();
    expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(tolerance + 1e-9);
  };
  expect(result.audio.channels).toBe(2);
  near(result.audio.duration_s, 20);
  near(result.talk.operator_s, 7);
  near(result.talk.customer_s, 6.5);
  near(result.overtalk?.total_s, 0.5);
  near(result.silence.total_s, 7);
  near(result.silence.longest_s, 5);
  near(result.silence.longest_start_s, 9);
  expect(result.turns).toMatchObject({ count: 6, speaker_switches: 5, interruptions: 1, interruptions_by_channel: [0, 1] });
  expect(result.talk.per_channel.map((c) => c.segments)).toEqual([3, 3]);
}
