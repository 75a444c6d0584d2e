import type { Utterance, Word } from '../transcript/transcript.js';

/**
 * PII redaction of transcript text and words. Detection works on tokens (a word of the engine, or
 * a whitespace-separated piece of an utterance's text), because engines write a card number
 * either as digits in groups ("4111 1111 …", "4111-1111-…") or digit by digit in words ("four one
 * one one …"): consecutive tokens that carry only digits form one number.
 *
 * - card_number: 13-19 digits that pass the Luhn check (a number failing it is left alone);
 * - phone_number: 10-13 digits, or 7-15 digits written with a leading `+`;
 * - email_address: a token of the form local@domain.tld.
 */
export type PiiKind = 'card_number' | 'email_address' | 'phone_number';

export const PII_KINDS: readonly PiiKind[] = ['card_number', 'email_address', 'phone_number'];

const MARKERS: Readonly<Record<PiiKind, string>> = {
  card_number: '[CARD_NUMBER]',
  email_address: '[EMAIL_ADDRESS]',
  phone_number: '[PHONE_NUMBER]',
};

/** Tokens `first..last` (inclusive) are one piece of PII. */
export interface PiiSpan {
  readonly kind: PiiKind;
  readonly first: number;
  readonly last: number;
}

const DIGIT_WORDS: Readonly<Record<string, string>> = {
  zero: '0', oh: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9',
};
const EMAIL = /^[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)*\.\p{L}{2,}$/u;
/** Sentence punctuation around a token, never part of the value. */
const TRAILING = /[.,;:!?"')\]]+$/;
const LEADING = /^["'(\[]+/;

export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The digits a token carries (`4111`, `(555)`, `555-0199`, `+44`, `four`), or null for any other token. */
function digitsOf(token: string): string | null {
  const bare = token.replace(TRAILING, '');
  const word = DIGIT_WORDS[bare.toLowerCase()];
  if (word) return word;
  return /^\+?[(]?\d[\d().-]*$/.test(bare) ? bare.replace(/\D/g, '') : null;
}

function numberKind(digits: string, international: boolean): PiiKind | null {
  if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits)) return 'card_number';
  if (digits.length >= 10 && digits.length <= 13) return 'phone_number';
  if (international && digits.length >= 7 && digits.length <= 15) return 'phone_number';
  return null;
}

/** The PII in a sequence of tokens, in order. */
export function findPii(tokens: readonly string[]): PiiSpan[] {
  const spans: PiiSpan[] = [];
  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i]!;
    if (EMAIL.test(token.replace(TRAILING, '').replace(LEADING, ''))) {
      spans.push({ kind: 'email_address', first: i, last: i });
      i++;
      continue;
    }
    if (digitsOf(token) === null) {
      i++;
      continue;
    }
    let last = i;
    let digits = digitsOf(token)!;
    while (last + 1 < tokens.length && digitsOf(tokens[last + 1]!) !== null) digits += digitsOf(tokens[++last]!)!;
    const kind = numberKind(digits, token.replace(LEADING, '').startsWith('+'));
    if (kind) spans.push({ kind, first: i, last });
    i = last + 1;
  }
  return spans;
}

const kindsOf = (spans: readonly PiiSpan[]): PiiKind[] => PII_KINDS.filter((kind) => spans.some((s) => s.kind === kind));

/** Each piece of PII in the text becomes one marker (`[CARD_NUMBER]`); whitespace and sentence punctuation stay. */
export function redactText(text: string): { text: string; kinds: PiiKind[] } {
  const parts = text.split(/(\s+)/);
  // Even indexes are tokens (possibly empty at the ends), odd ones the whitespace between them.
  const tokenAt = parts.map((_, p) => p).filter((p) => p % 2 === 0 && parts[p] !== '');
  const spans = findPii(tokenAt.map((p) => parts[p]!));
  for (const span of [...spans].reverse()) {
    const firstPart = tokenAt[span.first]!;
    const lastPart = tokenAt[span.last]!;
    const punctuation = TRAILING.exec(parts[lastPart]!)?.[0] ?? '';
    parts.splice(firstPart, lastPart - firstPart + 1, `${MARKERS[span.kind]}${punctuation}`);
  }
  return { text: parts.join(''), kinds: kindsOf(spans) };
}

/** Words keep their times; the text of each word inside a piece of PII becomes that kind's marker. */
export function redactWords(words: readonly Word[]): { words: Word[]; kinds: PiiKind[] } {
  const spans = findPii(words.map((w) => w.text));
  const out = [...words];
  for (const span of spans) {
    for (let i = span.first; i <= span.last; i++) out[i] = { ...out[i]!, text: MARKERS[span.kind] };
  }
  return { words: out, kinds: kindsOf(spans) };
}

export interface RedactedUtterances {
  readonly utterances: Utterance[];
  /** What was found and redacted anywhere. */
  readonly kinds: PiiKind[];
}

/** Redacts the text and the words of every utterance; `kinds` lists what was found anywhere. */
export function redactUtterances(utterances: readonly Utterance[]): RedactedUtterances {
  const found = new Set<PiiKind>();
  const redacted = utterances.map((utterance): Utterance => {
    const text = redactText(utterance.text);
    const words = redactWords(utterance.words);
    for (const kind of [...text.kinds, ...words.kinds]) found.add(kind);
    return { ...utterance, text: text.text, words: words.words };
  });
  return { utterances: redacted, kinds: PII_KINDS.filter((kind) => found.has(kind)) };
}
