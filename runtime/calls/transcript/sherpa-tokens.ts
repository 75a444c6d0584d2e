import type { EngineWord } from './speech-engine.js';

/** What sherpa-onnx's OfflineRecognizer.getResult gives (the fields we read). */
export interface SherpaResult {
  readonly text?: string;
  readonly tokens?: readonly string[];
  readonly timestamps?: readonly number[];
  readonly ys_log_probs?: readonly number[];
}

/**
 * Joins sub-word tokens into words: a token opening with a space or `▁` (BPE) starts a word. A
 * word ends where the next word starts (or at the chunk's end); its confidence is the geometric
 * mean of its tokens' probabilities. Models that give no token times (Whisper in sherpa-onnx) get
 * the chunk's span shared among the words by their length: those times are approximate.
 */
export function wordsFromSherpa(result: SherpaResult, duration: number): EngineWord[] {
  const tokens = result.tokens ?? [];
  const times = result.timestamps ?? [];
  if (tokens.length === 0 || times.length !== tokens.length) return spreadText(result.text ?? '', duration);
  const words: { text: string; start: number; logProbs: number[] }[] = [];
  tokens.forEach((token, i) => {
    const opens = /^[\s▁]/.test(token) || words.length === 0;
    const piece = token.replace(/^[\s▁]+/, '');
    const logProb = result.ys_log_probs?.[i];
    if (opens) {
      if (!piece) return;
      words.push({ text: piece, start: times[i]!, logProbs: [] });
    } else {
      words[words.length - 1]!.text += piece;
    }
    if (logProb !== undefined) words[words.length - 1]!.logProbs.push(logProb);
  });
  return words.map((word, i) => ({
    text: word.text,
    start: word.start,
    end: Math.max(word.start, i + 1 < words.length ? words[i + 1]!.start : duration),
    confidence: word.logProbs.length ? Math.exp(word.logProbs.reduce((a, b) => a + b, 0) / word.logProbs.length) : 1,
  }));
}

function spreadText(text: string, duration: number): EngineWord[] {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const letters = words.reduce((sum, word) => sum + word.length, 0);
  let at = 0;
  return words.map((word) => {
    const start = (at / letters) * duration;
    at += word.length;
    return { text: word, start, end: (at / letters) * duration, confidence: 1 };
  });
}
