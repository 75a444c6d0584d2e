import { expect } from 'vitest';
import type { CallAnalysis } from '../../../runtime/calls/analysis/result.js';

/** One analysis frame: lossy codecs may move an edge by at most this much. */
export const FRAME_S = 0.02;

/**
 * Asserts the known answers of `referenceCall()`. `tolerance` 0 means exact (lossless formats);
 * for lossy formats every detected edge may move by `tolerance` (one frame), so a duration bounded
 * by two edges may move by twice that. Counts (turns, interruptions) are exact either way.
 */
export function expectReferenceTimings(result: CallAnalysis, tolerance: number): void {
  const near = (actual: number | null | undefined, expected: number, edges = 1): void => {
    expect(actual).not.toBeNull();
    expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(edges * tolerance + 1e-9);
  };
  expect(result.audio.channels).toBe(2);
  expect(result.audio.duration_s).toBe(20);
  const expectedSegments = [
    [[0, 3], [6, 8], [14, 16]],
    [[3, 6], [7.5, 9], [16, 18]],
  ];
  expectedSegments.forEach((channel, c) =>
    channel.forEach(([start, end], i) => {
      near(result.segments[c]?.[i]?.[0], start!);
      near(result.segments[c]?.[i]?.[1], end!);
    }),
  );
  near(result.talk.operator_s, 7, 6);
  near(result.talk.customer_s, 6.5, 6);
  near(result.overtalk?.total_s, 0.5, 2);
  near(result.silence.total_s, 7, 4);
  near(result.silence.longest_s, 5, 2);
  near(result.silence.longest_start_s, 9);
  expect(result.turns).toMatchObject({ count: 6, speaker_switches: 5, interruptions: 1, interruptions_by_channel: [0, 1] });
  expect(result.talk.per_channel.map((c) => c.segments)).toEqual([3, 3]);
}
