import { describe, expect, it } from 'vitest';
import { countInterruptions, countTurns, segmentsOf, type Segment } from '../../../runtime/calls/analysis/timeline.js';
import { bridgeGaps, dropShortRuns, percentile } from '../../../runtime/calls/analysis/vad.js';

const mask = (bits: string): Uint8Array => Uint8Array.from(bits, (b) => (b === '1' ? 1 : 0));
const text = (active: Uint8Array): string => Array.from(active).join('');
const seg = (channel: number, start: number, end: number): Segment => ({ channel, start, end });

describe('VAD smoothing', () => {
  it('bridges only gaps shorter than the minimum, never the edges', () => {
    const active = mask('0011000110000000111');
    bridgeGaps(active, 4);
    expect(text(active)).toBe('0011111110000000111');
  });

  it('drops runs shorter than the minimum', () => {
    const active = mask('1100111110011');
    dropShortRuns(active, 3);
    expect(text(active)).toBe('0000111110000');
  });

  it('takes a nearest-rank percentile', () => {
    expect(percentile(Float64Array.from([5, 1, 4, 2, 3]), 0.1)).toBe(1);
    expect(percentile(Float64Array.from([5, 1, 4, 2, 3]), 0.5)).toBe(3);
  });
});

describe('segments, turns, interruptions', () => {
  it('finds runs including one touching the end', () => {
    expect(segmentsOf(mask('0110011'), 1)).toEqual([seg(1, 1, 3), seg(1, 5, 7)]);
  });

  it('counts a speaker pausing as one turn', () => {
    expect(countTurns([[seg(0, 0, 10), seg(0, 20, 30)], [seg(1, 40, 50)]])).toBe(2);
    expect(countTurns([[], []])).toBe(0);
  });

  it('counts an interruption when the other speaker yields within the window', () => {
    const operator = [seg(0, 0, 100)];
    expect(countInterruptions([operator, [seg(1, 90, 150)]], 150)).toEqual([0, 1]);
    // The operator kept talking 120 frames after the customer started: outside a 100-frame window.
    expect(countInterruptions([[seg(0, 0, 200)], [seg(1, 80, 250)]], 100)).toEqual([0, 0]);
  });

  it('does not count a backchannel inside the other speech, nor simultaneous starts', () => {
    expect(countInterruptions([[seg(0, 0, 100)], [seg(1, 40, 50)]], 150)).toEqual([0, 0]);
    expect(countInterruptions([[seg(0, 0, 100)], [seg(1, 0, 150)]], 150)).toEqual([0, 0]);
  });
});
