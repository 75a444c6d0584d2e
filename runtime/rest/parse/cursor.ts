import { ApiError, parseError } from '../errors.js';

/** Deepest nesting accepted in `select` embeds and logic trees; deeper input is a 400, not a stack overflow. */
export const MAX_NESTING = 24;

/**
 * A position in one query-parameter value. Every parse failure becomes a PGRST100 naming
 * what was parsed, the input and the 1-based column, as PostgREST reports it.
 */
export class Cursor {
  pos = 0;

  /** `shown`: the text the error message names, when the parser reads more than the client sent (a logic tree's operator). */
  constructor(readonly input: string, readonly what: string, readonly shown: string = input) {}

  get eof(): boolean {
    return this.pos >= this.input.length;
  }

  peek(offset = 0): string {
    return this.input.charAt(this.pos + offset);
  }

  startsWith(text: string): boolean {
    return this.input.startsWith(text, this.pos);
  }

  /** Consumes `text` when it is next. */
  eat(text: string): boolean {
    if (!this.startsWith(text)) return false;
    this.pos += text.length;
    return true;
  }

  expect(text: string, expecting: string): void {
    if (!this.eat(text)) this.fail(expecting);
  }

  skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos += 1;
  }

  fail(expecting: string): never {
    throw this.error(expecting);
  }

  error(expecting: string): ApiError {
    const unexpected = this.eof ? 'end of input' : JSON.stringify(this.peek());
    return parseError(this.what, this.shown, this.pos + 1, `unexpected ${unexpected} expecting ${expecting}`);
  }

  /** Fails where the input should have ended: PostgREST's parser then shows the character in single quotes. */
  failAtEnd(expecting: string): never {
    throw parseError(this.what, this.shown, this.pos + 1, `unexpected '${this.peek()}' expecting ${expecting}`);
  }
}
