import type { CompletedTranscript, Utterance } from '../../../runtime/calls/transcript/transcript.js';

const ms = (seconds: number): number => Math.round(seconds * 1000) / 1000;

/** An utterance whose words are 0.4 s apart, each lasting 0.3 s, confidence 0.9. */
export function utterance(speaker: string, start: number, text: string): Utterance {
  const words = text.split(' ').map((word, i) => ({ text: word, start: ms(start + i * 0.4), end: ms(start + i * 0.4 + 0.3), confidence: 0.9, speaker }));
  return { speaker, start, end: words[words.length - 1]!.end, confidence: 0.9, text, words };
}

/**
 * A support call as a speech engine might hear it: the operator says the eight phrases of the
 * greeting/verification/closing script, some misrecognised ("recorded" as "recorder", "verify" as
 * "very fine", "anything else" as "any thing els"); the customer gives a card number, an e-mail
 * address and a phone number.
 */
export const SUPPORT_CALL: readonly Utterance[] = [
  utterance('operator', 0, 'thank you for calling acme this is dana speaking'),
  utterance('operator', 4, 'this call may be recorder for quality purposes'),
  utterance('customer', 8, 'hi I want a re fund for my order'),
  utterance('operator', 12, 'I can help with that can I very fine your identity please'),
  utterance('customer', 17, 'sure my card is 4111 1111 1111 1111 and my email is jo.smith@example.com'),
  utterance('operator', 24, 'thank you and what is the best number to reach you'),
  utterance('customer', 29, 'call me on five five five two three four nine eight seven six'),
  utterance('operator', 34, 'I have issued the refund it takes five business days'),
  utterance('operator', 38, 'is there any thing els I can help you with today'),
  utterance('customer', 42, 'no that is all I might cancel my subscription later'),
  utterance('operator', 46, 'thank you for your patience have a great day'),
];

export const SCRIPT = [
  'thank you for calling acme',
  'this call may be recorded for quality purposes',
  'can I verify your identity',
  'what is the best number to reach you',
  'I have issued the refund',
  'five business days',
  'is there anything else I can help you with',
  'thank you for your patience',
];

export function transcriptOf(utterances: readonly Utterance[]): CompletedTranscript {
  return {
    status: 'completed',
    engine: 'fixture',
    model: 'hand-written',
    language: 'en-US',
    separation: { method: 'channel', confidence: 1 },
    speakers: [
      { id: 'operator', label: 'Operator', channel: 0 },
      { id: 'customer', label: 'Customer', channel: 1 },
    ],
    utterances,
  };
}
