import { readFileSync } from 'node:fs';
import path from 'node:path';
import Handlebars from 'handlebars';

export type MailKind = 'confirmation' | 'recovery' | 'email_change' | 'email_change_current' | 'magic_link' | 'invite' | 'reauthentication';

export interface MailVariables {
  /** The account's (current) address. */
  readonly email: string;
  /** The address an e-mail change asks for; only the two e-mail change templates use it. */
  readonly newEmail?: string;
  readonly projectRef: string;
  /** The verify link (the only place the token appears); '' in a mail that carries only a code. */
  readonly link: string;
  /** The 6-digit code that stands for the link (GoTrue's `{{ .Token }}`), or the reauthentication nonce. */
  readonly code: string;
  /** How long link and code stay valid, in words: "1 hour", "24 hours", "10 minutes". */
  readonly validFor: string;
}

export interface RenderedMail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

const templateDir = path.resolve(import.meta.dirname, '../../templates/mail');

interface CompiledMail {
  readonly subject: Handlebars.TemplateDelegate<MailVariables>;
  readonly text: Handlebars.TemplateDelegate<MailVariables>;
  readonly html: Handlebars.TemplateDelegate<MailVariables>;
}

const compiled = new Map<MailKind, CompiledMail>();

function load(kind: MailKind, part: 'subject' | 'text' | 'html'): Handlebars.TemplateDelegate<MailVariables> {
  const source = readFileSync(path.join(templateDir, `${kind}.${part}.hbs`), 'utf8');
  // Plain-text parts must not be HTML-escaped (the link holds `&`).
  return Handlebars.compile<MailVariables>(source, { noEscape: part !== 'html', strict: true });
}

function templatesFor(kind: MailKind): CompiledMail {
  let templates = compiled.get(kind);
  if (templates === undefined) {
    templates = { subject: load(kind, 'subject'), text: load(kind, 'text'), html: load(kind, 'html') };
    compiled.set(kind, templates);
  }
  return templates;
}

export function renderMail(kind: MailKind, variables: MailVariables): RenderedMail {
  const templates = templatesFor(kind);
  return {
    subject: templates.subject(variables).trim(),
    text: templates.text(variables),
    html: templates.html(variables),
  };
}
