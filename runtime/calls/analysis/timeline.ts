/** A run of talk frames of one channel: `[start, end)` in frame indexes. */
export interface Segment {
  readonly channel: number;
  readonly start: number;
  readonly end: number;
}

export function segmentsOf(active: Uint8Array, channel: number): Segment[] {
  const segments: Segment[] = [];
  let start = -1;
  for (let f = 0; f <= active.length; f++) {
    const on = f < active.length && active[f] === 1;
    if (on && start < 0) start = f;
    if (!on && start >= 0) {
      segments.push({ channel, start, end: f });
      start = -1;
    }
  }
  return segments;
}

/**
 * Turns: all segments ordered by start (ties by channel); a turn is a maximal run of consecutive
 * segments of the same channel, so a speaker's pauses do not add turns but every change of
 * speaker does.
 */
export function countTurns(segments: readonly (readonly Segment[])[]): number {
  const ordered = segments.flat().sort((a, b) => a.start - b.start || a.channel - b.channel);
  let turns = 0;
  let previous = -1;
  for (const segment of ordered) {
    if (segment.channel !== previous) turns++;
    previous = segment.channel;
  }
  return turns;
}

/** The segment of `sorted` (ordered, non-overlapping) that contains frame `frame`, if any. */
function containing(sorted: readonly Segment[], frame: number): Segment | undefined {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const segment = sorted[mid]!;
    if (frame < segment.start) hi = mid - 1;
    else if (frame >= segment.end) lo = mid + 1;
    else return segment;
  }
  return undefined;
}

/**
 * Interruptions, counted per interrupter. Segment S of speaker X interrupts speaker Y when
 * 1. S starts while Y is talking (strictly after Y's segment started: simultaneous starts are not
 *    interruptions),
 * 2. Y stops within `windowFrames` of S's start (Y yielded the floor), and
 * 3. X is still talking when Y stops (so a short backchannel like "mm-hm" inside Y's speech is not
 *    an interruption).
 * Each segment counts at most once.
 */
export function countInterruptions(segments: readonly (readonly Segment[])[], windowFrames: number): number[] {
  return segments.map((own, x) =>
    own.filter((s) =>
      segments.some((other, y) => {
        if (y === x) return false;
        const talking = containing(other, s.start);
        return talking !== undefined && talking.start < s.start && talking.end - s.start <= windowFrames && s.end > talking.end;
      }),
    ).length,
  );
}

export interface Coverage {
  /** Frames in which no channel talks. */
  readonly silenceFrames: Uint8Array;
  /** Frames in which at least two channels talk. */
  readonly overtalkFrames: Uint8Array;
}

export function coverage(actives: readonly Uint8Array[], frameCount: number): Coverage {
  const silenceFrames = new Uint8Array(frameCount);
  const overtalkFrames = new Uint8Array(frameCount);
  for (let f = 0; f < frameCount; f++) {
    let talking = 0;
    for (const active of actives) talking += active[f]!;
    silenceFrames[f] = talking === 0 ? 1 : 0;
    overtalkFrames[f] = talking >= 2 ? 1 : 0;
  }
  return { silenceFrames, overtalkFrames };
}

/** The longest segment, earliest first on ties. */
export function longest(segments: readonly Segment[], length: (s: Segment) => number): Segment | undefined {
  let best: Segment | undefined;
  for (const segment of segments) if (!best || length(segment) > length(best)) best = segment;
  return best;
}
