/** The event types a webhook endpoint can subscribe to. A type's payload never changes shape in place. */
export const EVENT_TYPES = ['call.analysis.completed', 'call.analysis.failed', 'attendance.check_in.created', 'access.denied'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/** The body of every delivery: the Standard Webhooks envelope. */
export interface EventEnvelope {
  readonly type: EventType;
  readonly timestamp: string;
  readonly data: unknown;
}
