import { describe, expect, it } from 'vitest';
import { buildInsights } from '../../../../runtime/calls/insights/insights.js';
import { bestMatch, similarity, spotPhrase } from '../../../../runtime/calls/insights/phrase-spotting.js';
import { findPii, luhnValid, redactText, redactUtterances, redactWords } from '../../../../runtime/calls/insights/pii-redaction.js';
import { checkScript } from '../../../../runtime/calls/insights/script-adherence.js';
import { DEFAULT_INSIGHT_SETTINGS, parseInsightSettings } from '../../../../runtime/calls/insights/settings.js';
import { utteranceMetrics } from '../../../../runtime/calls/insights/utterance-metrics.js';
import { SCRIPT, SUPPORT_CALL, transcriptOf, utterance } from '../../../helpers/calls/fixture-transcript.js';

describe('fuzzy phrase spotting', () => {
  it('finds keywords the engine misrecognised, split or joined, with score, times and speaker', () => {
    expect(spotPhrase(SUPPORT_CALL, 'refund', { minScore: 0.8 })).toEqual([
      { phrase: 'refund', text: 're fund', score: 1, start: 9.6, end: 10.3, speaker: 'customer' },
      { phrase: 'refund', text: 'refund', score: 1, start: 35.6, end: 35.9, speaker: 'operator' },
    ]);
    expect(spotPhrase(SUPPORT_CALL, 'cancel subscription', { minScore: 0.8 })).toEqual([
      { phrase: 'cancel subscription', text: 'cancel my subscription', score: 0.9, start: 44.4, end: 45.5, speaker: 'customer' },
    ]);
    const heardBadly = [utterance('customer', 0, 'can I speak to your super visor or a mannager')];
    expect(spotPhrase(heardBadly, 'supervisor', { minScore: 0.8 })).toEqual([{ phrase: 'supervisor', text: 'super visor', score: 1, start: 2, end: 2.7, speaker: 'customer' }]);
    expect(spotPhrase(heardBadly, 'manager', { minScore: 0.8 })).toEqual([{ phrase: 'manager', text: 'mannager', score: 0.875, start: 3.6, end: 3.9, speaker: 'customer' }]);
  });

  it('does not match words that are merely alike, honours the speaker and the threshold, ignores case and punctuation', () => {
    expect(spotPhrase(SUPPORT_CALL, 'supervisor', { minScore: 0.8 })).toEqual([]);
    expect(spotPhrase(SUPPORT_CALL, 'refund', { minScore: 0.8, speaker: 'operator' }).map((m) => m.start)).toEqual([35.6]);
    expect(spotPhrase([utterance('operator', 0, 'Refund, please!')], 'REFUND', { minScore: 1 })).toEqual([
      { phrase: 'REFUND', text: 'Refund,', score: 1, start: 0, end: 0.3, speaker: 'operator' },
    ]);
    expect(spotPhrase([utterance('operator', 0, 'refunded')], 'refund', { minScore: 0.8 })).toEqual([]);
    expect(spotPhrase([utterance('operator', 0, 'refunded')], 'refund', { minScore: 0.75 })).toHaveLength(1);
  });

  it('scores by edit distance over the longer text', () => {
    expect(similarity('refund', 'refund')).toBe(1);
    expect(similarity('refund', 'refunds')).toBeCloseTo(6 / 7, 10);
    expect(similarity('', '')).toBe(1);
    expect(bestMatch([], 'anything')).toBeNull();
  });
});

describe('script adherence', () => {
  it('finds 8 of the 8 required phrases of the fixture call, misrecognitions included', () => {
    const adherence = checkScript(SUPPORT_CALL, SCRIPT, { minScore: 0.8, speaker: 'operator' });
    expect([adherence.required, adherence.found, adherence.ratio]).toEqual([8, 8, 1]);
    expect(adherence.phrases.map((p) => [p.phrase, p.found, p.score, p.text, p.start, p.speaker])).toEqual([
      ['thank you for calling acme', true, 1, 'thank you for calling acme', 0, 'operator'],
      ['this call may be recorded for quality purposes', true, 0.9783, 'this call may be recorder for quality purposes', 4, 'operator'],
      ['can I verify your identity', true, 0.8333, 'can I very fine your identity', 14, 'operator'],
      ['what is the best number to reach you', true, 1, 'what is the best number to reach you', 25.2, 'operator'],
      ['I have issued the refund', true, 1, 'I have issued the refund', 34, 'operator'],
      ['five business days', true, 1, 'five business days', 36.8, 'operator'],
      ['is there anything else I can help you with', true, 0.9706, 'is there any thing els I can help you with', 38, 'operator'],
      ['thank you for your patience', true, 1, 'thank you for your patience', 46, 'operator'],
    ]);
  });

  it('a phrase never said is not found but shows its best score; phrases said by the other speaker do not count', () => {
    const adherence = checkScript(SUPPORT_CALL, ['may I have your account number', 'I want a refund'], { minScore: 0.8, speaker: 'operator' });
    expect(adherence.found).toBe(0);
    expect(adherence.ratio).toBe(0);
    expect(adherence.phrases[0]!.found).toBe(false);
    expect(adherence.phrases[0]!.score).toBeLessThan(0.8);
    expect(adherence.phrases[0]!.score).toBeGreaterThan(0);
    expect(adherence.phrases[1]!.found).toBe(false);
    expect(checkScript(SUPPORT_CALL, ['I want a refund'], { minScore: 0.8, speaker: null }).phrases[0]).toEqual({
      phrase: 'I want a refund', found: true, score: 1, text: 'I want a re fund', start: 8.4, end: 10.3, speaker: 'customer',
    });
    expect(checkScript([], ['hello'], { minScore: 0.8, speaker: null }).phrases).toEqual([
      { phrase: 'hello', found: false, score: 0, text: null, start: null, end: null, speaker: null },
    ]);
  });
});

describe('PII redaction', () => {
  it('the Luhn check', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('5500005555555559')).toBe(true);
    expect(luhnValid('378282246310005')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('41x1')).toBe(false);
  });

  it('card numbers in groups, with dashes, in one piece and spoken digit by digit', () => {
    expect(redactText('my card is 4111 1111 1111 1111 thanks')).toEqual({ text: 'my card is [CARD_NUMBER] thanks', kinds: ['card_number'] });
    expect(redactText('card 5500-0055-5555-5559.')).toEqual({ text: 'card [CARD_NUMBER].', kinds: ['card_number'] });
    expect(redactText('amex 378282246310005, ok')).toEqual({ text: 'amex [CARD_NUMBER], ok', kinds: ['card_number'] });
    const spoken = 'it is four one one one one one one one one one one one one one one one';
    expect(redactText(spoken)).toEqual({ text: 'it is [CARD_NUMBER]', kinds: ['card_number'] });
  });

  it('numbers that fail the Luhn check are not card numbers and are left alone', () => {
    expect(redactText('my card is 4111 1111 1111 1112 thanks')).toEqual({ text: 'my card is 4111 1111 1111 1112 thanks', kinds: [] });
    expect(redactText('order 4111111111111112')).toEqual({ text: 'order 4111111111111112', kinds: [] });
    expect(redactText('it is four one one one one one one one one one one one one one one two').kinds).toEqual([]);
  });

  it('e-mail addresses and phone numbers; short numbers and plain words stay', () => {
    expect(redactText('write to Jo.Smith+billing@mail.example.co.uk, please')).toEqual({ text: 'write to [EMAIL_ADDRESS], please', kinds: ['email_address'] });
    expect(redactText('call (555) 234-9876 or +44 20 7946 0958')).toEqual({ text: 'call [PHONE_NUMBER] or [PHONE_NUMBER]', kinds: ['phone_number'] });
    expect(redactText('call five five five two three four nine eight seven six')).toEqual({ text: 'call [PHONE_NUMBER]', kinds: ['phone_number'] });
    expect(redactText('+351 912345')).toEqual({ text: '[PHONE_NUMBER]', kinds: ['phone_number'] });
    expect(redactText('order 12345, 3 items, at 10.30, user@localhost, one two three')).toEqual({ text: 'order 12345, 3 items, at 10.30, user@localhost, one two three', kinds: [] });
  });

  it('words keep their times and get the marker; kinds are listed once, in a fixed order', () => {
    const [u] = [utterance('customer', 0, 'mail a@b.io or call 555 234 9876')];
    const { words, kinds } = redactWords(u!.words);
    expect(words.map((w) => w.text)).toEqual(['mail', '[EMAIL_ADDRESS]', 'or', 'call', '[PHONE_NUMBER]', '[PHONE_NUMBER]', '[PHONE_NUMBER]']);
    expect(words.map((w) => w.start)).toEqual(u!.words.map((w) => w.start));
    expect(kinds).toEqual(['email_address', 'phone_number']);
    expect(findPii(['4111', '1111', '1111', '1111', 'x', 'a@b.io'])).toEqual([
      { kind: 'card_number', first: 0, last: 3 },
      { kind: 'email_address', first: 5, last: 5 },
    ]);
    const redacted = redactUtterances(SUPPORT_CALL);
    expect(redacted.kinds).toEqual(['card_number', 'email_address', 'phone_number']);
    expect(redacted.utterances[4]!.text).toBe('sure my card is [CARD_NUMBER] and my email is [EMAIL_ADDRESS]');
    expect(redacted.utterances[6]!.text).toBe('call me on [PHONE_NUMBER]');
    expect(redacted.utterances[6]!.words.map((w) => w.text).join(' ')).toBe(`call me on ${Array(10).fill('[PHONE_NUMBER]').join(' ')}`);
    expect(JSON.stringify(redacted.utterances)).not.toMatch(/4111|jo\.smith|nine eight/);
  });
});

describe('talk metrics per utterance', () => {
  it('duration, words, rate, pause before, overlap and interruption', () => {
    const metrics = utteranceMetrics([
      utterance('operator', 0, 'hello how can I help'),
      utterance('customer', 2.5, 'my order never came'),
      utterance('operator', 3.5, 'let me check that for you right now'),
      utterance('customer', 7, 'ok'),
    ]);
    expect(metrics).toEqual([
      { index: 0, speaker: 'operator', start: 0, end: 1.9, duration_s: 1.9, words: 5, words_per_minute: 157.9, pause_before_s: null, overlap_s: 0, interruption: false },
      { index: 1, speaker: 'customer', start: 2.5, end: 4.0, duration_s: 1.5, words: 4, words_per_minute: 160, pause_before_s: 0.6, overlap_s: 0.5, interruption: false },
      { index: 2, speaker: 'operator', start: 3.5, end: 6.6, duration_s: 3.1, words: 8, words_per_minute: 154.8, pause_before_s: 0, overlap_s: 0.5, interruption: true },
      { index: 3, speaker: 'customer', start: 7, end: 7.3, duration_s: 0.3, words: 1, words_per_minute: 200, pause_before_s: 0.4, overlap_s: 0, interruption: false },
    ]);
  });
});

describe('insights of a transcript', () => {
  const settings = {
    ...DEFAULT_INSIGHT_SETTINGS,
    keyword_lists: [
      { name: 'churn', phrases: ['cancel subscription', 'refund'] },
      { name: 'payment', phrases: ['card number', 'my card'] },
    ],
    script: { phrases: SCRIPT, speaker: 'operator' },
    redact_pii: true,
  };

  it('keywords in time order with their list, script adherence, redaction and per-utterance metrics', () => {
    const { transcript, insights } = buildInsights(transcriptOf(SUPPORT_CALL), settings);
    expect(insights.keywords.map((k) => [k.list, k.phrase, k.text, k.start, k.speaker])).toEqual([
      ['churn', 'refund', 're fund', 9.6, 'customer'],
      ['payment', 'my card', 'my card', 17.4, 'customer'],
      ['churn', 'refund', 'refund', 35.6, 'operator'],
      ['churn', 'cancel subscription', 'cancel my subscription', 44.4, 'customer'],
    ]);
    expect([insights.script!.found, insights.script!.required]).toEqual([8, 8]);
    expect(insights.pii).toEqual({ redacted: true, kinds: ['card_number', 'email_address', 'phone_number'] });
    expect(insights.utterances).toHaveLength(SUPPORT_CALL.length);
    expect(transcript.utterances[4]!.text).toBe('sure my card is [CARD_NUMBER] and my email is [EMAIL_ADDRESS]');
    expect(transcript.engine).toBe('fixture');
  });

  it('a match never shows what redaction hid; without redaction the transcript is untouched and no script gives null', () => {
    const numbers = { ...settings, keyword_lists: [{ name: 'n', phrases: ['card is 4111'] }], script: { phrases: [], speaker: null } };
    const { insights } = buildInsights(transcriptOf(SUPPORT_CALL), numbers);
    expect(insights.keywords.map((k) => k.text)).toEqual(['card is [CARD_NUMBER]']);
    expect(insights.script).toBeNull();
    const plain = buildInsights(transcriptOf(SUPPORT_CALL), { ...numbers, redact_pii: false });
    expect(plain.insights.pii).toEqual({ redacted: false, kinds: [] });
    expect(plain.transcript.utterances).toBe(SUPPORT_CALL);
    expect(plain.insights.keywords.map((k) => k.text)).toEqual(['card is 4111']);
  });
});

describe('insight settings validation', () => {
  it('accepts the whole settings and fills defaults', () => {
    expect(parseInsightSettings({})).toEqual({ ok: true, value: DEFAULT_INSIGHT_SETTINGS });
    expect(parseInsightSettings({ keyword_lists: [{ name: 'churn', phrases: ['cancel'] }], script: { phrases: ['hello'], speaker: 'operator' }, redact_pii: true, min_score: 0.9 })).toEqual({
      ok: true,
      value: { keyword_lists: [{ name: 'churn', phrases: ['cancel'] }], script: { phrases: ['hello'], speaker: 'operator' }, redact_pii: true, min_score: 0.9 },
    });
  });

  it('names every bad field', () => {
    const parsed = parseInsightSettings({
      keyword_lists: [{ name: 'a', phrases: ['ok', '!!!', 7] }, { name: 'a', phrases: [], extra: 1 }, 'x'],
      script: { phrases: 'hello', speaker: '' },
      redact_pii: 'yes',
      min_score: 0.2,
      other: true,
    });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.map((e) => [e.field, e.code])).toEqual([
      ['other', 'unknown_field'],
      ['keyword_lists[0].phrases[1]', 'invalid_phrase'],
      ['keyword_lists[0].phrases[2]', 'invalid_type'],
      ['keyword_lists[1].extra', 'unknown_field'],
      ['keyword_lists[1].name', 'duplicate_name'],
      ['keyword_lists[2]', 'invalid_type'],
      ['script.phrases', 'invalid_type'],
      ['script.speaker', 'invalid_speaker'],
      ['redact_pii', 'invalid_type'],
      ['min_score', 'invalid_min_score'],
    ]);
    expect(parseInsightSettings([]).ok).toBe(false);
  });
});
