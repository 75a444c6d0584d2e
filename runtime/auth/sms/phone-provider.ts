import type { ProjectSettings } from '../../platform/project-context.js';

/** Phone sign-in is on when the project can send a text: an SMS provider, or the send-SMS hook (GoTrue's EXTERNAL_PHONE_ENABLED with a sender). */
export function phoneProviderEnabled(settings: ProjectSettings): boolean {
  return settings['auth.sms'].provider !== '' || settings['auth.hook'].send_sms.enabled;
}
