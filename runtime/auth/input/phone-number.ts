import { authErrors } from '../http/errors.js';
import { formatPhone, isE164 } from '../../settings/phone-format.js';

/** GoTrue's validatePhone: the stored form, or 400 validation_failed. */
export function acceptPhone(value: unknown): string {
  const phone = formatPhone(typeof value === 'string' ? value : String(value ?? ''));
  if (!isE164(phone)) throw authErrors.validation('Invalid phone number format (E.164 required)');
  return phone;
}
