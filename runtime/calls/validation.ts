import type { AddressPolicy } from '../outbound/address-policy.js';
import { FetchError } from '../outbound/errors.js';
import { checkOutboundUrl } from '../outbound/outbound-url.js';
import { fieldList, type BodyOf, type QueryOf } from '../http/endpoint.js';
import type { callsEndpoints } from './endpoints.js';
import type { FieldError } from './errors.js';
import { EVENT_TYPES, isEventType, type EventType } from './webhooks/events.js';

/** Pure request validation: every bad field is reported, each with its own stable code. */
export type Validated<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: FieldError[] };

const MAX_URL_LENGTH = 2048;
const CONTROL = /[\u0000-\u001f\u007f]/;

export type Fields = Record<string, unknown>;

export function isObject(body: unknown): body is Fields {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}

export const NOT_AN_OBJECT: FieldError = { field: '', code: 'invalid_body', message: 'the body must be a JSON object' };

export function fieldsOf(body: unknown, allowed: readonly string[], errors: FieldError[]): Fields {
  if (!isObject(body)) {
    errors.push(NOT_AN_OBJECT);
    return {};
  }
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) errors.push({ field: key, code: 'unknown_field', message: `unknown field; allowed: ${allowed.join(', ')}` });
  }
  return body as Fields;
}

export function requiredString(fields: Fields, field: string, errors: FieldError[]): string | null {
  const value = fields[field];
  if (value === undefined || value === null) {
    errors.push({ field, code: 'required', message: `${field} is required` });
    return null;
  }
  if (typeof value !== 'string') {
    errors.push({ field, code: 'invalid_type', message: `${field} must be a string` });
    return null;
  }
  return value;
}

/** An outbound http(s) URL: length, no whitespace, no credentials, IP-literal hosts checked against the SSRF policy. */
export function outboundUrl(fields: Fields, field: string, policy: AddressPolicy, errors: FieldError[]): string | null {
  const raw = requiredString(fields, field, errors);
  if (raw === null) return null;
  if (raw.length > MAX_URL_LENGTH) {
    errors.push({ field, code: 'too_long', message: `${field} is longer than ${MAX_URL_LENGTH} characters` });
    return null;
  }
  if (/\s/.test(raw)) {
    errors.push({ field, code: 'invalid_url', message: `${field} must not contain whitespace` });
    return null;
  }
  try {
    return checkOutboundUrl(raw, policy).href;
  } catch (error) {
    if (!(error instanceof FetchError)) throw error;
    errors.push({ field, code: error.code, message: error.message });
    return null;
  }
}

/**
 * A BCP-47 tag in canonical form (`en-us` -> `en-US`, `iw` -> `he`), or null. The primary
 * language subtag must be 2-3 letters: Intl alone accepts `english` as a 5-8 letter subtag.
 */
export function canonicalLanguage(tag: string): string | null {
  if (tag.length === 0 || tag.length > 35) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical && /^[a-z]{2,3}(-|$)/.test(canonical) ? canonical : null;
  } catch {
    return null;
  }
}

/** An operator's id: 1-128 characters without control characters. */
export function operatorId(fields: Fields, errors: FieldError[]): string | null {
  const value = requiredString(fields, 'operator_id', errors);
  if (value === null) return null;
  if (value.length < 1 || value.length > 128 || CONTROL.test(value)) {
    errors.push({ field: 'operator_id', code: 'invalid_operator_id', message: 'operator_id must be 1-128 characters without control characters' });
    return null;
  }
  return value;
}

/** 1-255 printable ASCII characters, as Stripe and the IETF draft allow. */
export function isValidIdempotencyKey(key: string): boolean {
  return /^[\x21-\x7e]{1,255}$/.test(key);
}

const WEBHOOK_FIELDS = fieldList<BodyOf<typeof callsEndpoints.createWebhook>>()(['url', 'events']);

export interface WebhookRequest {
  readonly url: string;
  readonly events: readonly EventType[];
}

export function parseWebhookRequest(body: unknown, policy: AddressPolicy): Validated<WebhookRequest> {
  if (!isObject(body)) return { ok: false, errors: [NOT_AN_OBJECT] };
  const errors: FieldError[] = [];
  const fields = fieldsOf(body, WEBHOOK_FIELDS, errors);
  const url = outboundUrl(fields, 'url', policy, errors);
  const events = fields.events;
  if (events === undefined) {
    errors.push({ field: 'events', code: 'required', message: 'events is required' });
  } else if (!Array.isArray(events) || events.length === 0) {
    errors.push({ field: 'events', code: 'invalid_type', message: 'events must be a non-empty array of event types' });
  } else {
    events.forEach((event: unknown, i) => {
      if (!isEventType(event)) errors.push({ field: `events[${i}]`, code: 'unknown_event_type', message: `one of ${EVENT_TYPES.join(', ')}` });
    });
  }
  if (errors.length) return { ok: false, errors };
  return { ok: true, value: { url: url!, events: [...new Set(events as EventType[])] } };
}

const ROTATE_FIELDS = fieldList<BodyOf<typeof callsEndpoints.rotateWebhookSecret>>()(['grace_seconds']);

export interface RotateRequest {
  readonly grace_seconds: number;
}

export function parseRotateRequest(body: unknown): Validated<RotateRequest> {
  const errors: FieldError[] = [];
  const fields = body === undefined ? {} : fieldsOf(body, ROTATE_FIELDS, errors);
  const grace = fields.grace_seconds ?? 86_400;
  if (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0 || grace > 604_800) {
    errors.push({ field: 'grace_seconds', code: 'invalid_grace_seconds', message: 'grace_seconds must be an integer from 0 to 604800' });
  }
  if (errors.length) return { ok: false, errors };
  return { ok: true, value: { grace_seconds: grace as number } };
}

export const CHECK_IN_SOURCES = ['badge', 'pin', 'web', 'api', 'kiosk'] as const;

const CHECK_IN_FIELDS = fieldList<BodyOf<typeof callsEndpoints.checkIn>>()(['operator_id', 'source', 'site_id', 'occurred_at']);

export interface CheckInRequest {
  readonly operator_id: string;
  readonly source: string;
  readonly site_id: string | null;
  readonly occurred_at: Date | null;
}

export function parseCheckInRequest(body: unknown): Validated<CheckInRequest> {
  if (!isObject(body)) return { ok: false, errors: [NOT_AN_OBJECT] };
  const errors: FieldError[] = [];
  const fields = fieldsOf(body, CHECK_IN_FIELDS, errors);
  const operator = operatorId(fields, errors);
  const source = fields.source ?? 'api';
  if (typeof source !== 'string' || !(CHECK_IN_SOURCES as readonly string[]).includes(source)) {
    errors.push({ field: 'source', code: 'invalid_source', message: `source must be one of ${CHECK_IN_SOURCES.join(', ')}` });
  }
  const site = fields.site_id ?? null;
  if (site !== null && (typeof site !== 'string' || site.length < 1 || site.length > 128 || CONTROL.test(site))) {
    errors.push({ field: 'site_id', code: 'invalid_site_id', message: 'site_id must be 1-128 characters without control characters' });
  }
  const occurredText = fields.occurred_at ?? null;
  let occurred: Date | null = null;
  if (occurredText !== null) {
    occurred = typeof occurredText === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(occurredText) ? new Date(occurredText) : null;
    if (!occurred || Number.isNaN(occurred.getTime())) {
      errors.push({ field: 'occurred_at', code: 'invalid_timestamp', message: 'occurred_at must be an ISO 8601 timestamp' });
    }
  }
  if (errors.length) return { ok: false, errors };
  return { ok: true, value: { operator_id: operator!, source: source as string, site_id: site as string | null, occurred_at: occurred } };
}

const OPERATOR_FIELDS = fieldList<BodyOf<typeof callsEndpoints.updateOperator>>()(['active']);

export function parseOperatorUpdate(body: unknown): Validated<{ active: boolean }> {
  if (!isObject(body)) return { ok: false, errors: [NOT_AN_OBJECT] };
  const errors: FieldError[] = [];
  const fields = fieldsOf(body, OPERATOR_FIELDS, errors);
  if (typeof fields.active !== 'boolean') errors.push({ field: 'active', code: fields.active === undefined ? 'required' : 'invalid_type', message: 'active must be a boolean' });
  if (errors.length) return { ok: false, errors };
  return { ok: true, value: { active: fields.active as boolean } };
}

const LIST_PARAMETERS = fieldList<QueryOf<typeof callsEndpoints.listCalls>>()(['limit', 'cursor', 'status', 'operator_id']);

export interface ListQuery {
  readonly limit: number;
  readonly cursor: string | null;
  readonly status: string | null;
  readonly operatorId: string | null;
}

const STATUSES = ['queued', 'processing', 'completed', 'failed'];

export function parseListQuery(query: Readonly<Record<string, unknown>>): Validated<ListQuery> {
  const errors: FieldError[] = [];
  for (const key of Object.keys(query)) {
    if (!LIST_PARAMETERS.includes(key)) errors.push({ field: key, code: 'unknown_parameter', message: `allowed: ${LIST_PARAMETERS.join(', ')}` });
  }
  const single = (name: string): string | null => {
    const value = query[name];
    if (value === undefined) return null;
    if (typeof value !== 'string') {
      errors.push({ field: name, code: 'invalid_type', message: `${name} must be given once` });
      return null;
    }
    return value;
  };
  const limitText = single('limit');
  const limit = limitText === null ? 20 : Number(limitText);
  if (!/^\d{1,3}$/.test(limitText ?? '20') || limit < 1 || limit > 100) errors.push({ field: 'limit', code: 'invalid_limit', message: 'limit must be an integer from 1 to 100' });
  const status = single('status');
  if (status !== null && !STATUSES.includes(status)) errors.push({ field: 'status', code: 'invalid_status', message: `status must be one of ${STATUSES.join(', ')}` });
  const cursor = single('cursor');
  if (cursor !== null && decodeCursor(cursor) === null) errors.push({ field: 'cursor', code: 'invalid_cursor', message: 'cursor must be a next_cursor from a previous page' });
  const operatorId = single('operator_id');
  if (errors.length) return { ok: false, errors };
  return { ok: true, value: { limit, cursor, status, operatorId } };
}

/** Cursors are opaque: base64url of the last row's sequence number. */
export function encodeCursor(seq: string): string {
  return Buffer.from(`c:${seq}`).toString('base64url');
}

export function decodeCursor(cursor: string): string | null {
  const text = Buffer.from(cursor, 'base64url').toString();
  const match = /^c:(\d{1,19})$/.exec(text);
  return match ? match[1]! : null;
}
