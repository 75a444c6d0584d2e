import { describe, expect, it } from 'vitest';
import { compileRedirectGlob, GlobSyntaxError, splitPatternList } from '../../../runtime/settings/redirect-glob.js';
import { allowedRedirect, redirectPolicy, resolveRedirect } from '../../../runtime/auth/flows/redirects.js';

describe('redirect globs (gobwas/glob, separators . and /)', () => {
  it.each([
    ['https://app.example.com', 'https://app.example.com', true],
    ['https://app.example.com', 'https://app.example.com/', false],
    ['https://*.example.com', 'https://app.example.com', true],
    ['https://*.example.com', 'https://a.b.example.com', false],
    ['https://**.example.com', 'https://a.b.example.com', true],
    ['http://localhost:3000/*', 'http://localhost:3000/welcome', true],
    ['http://localhost:3000/*', 'http://localhost:3000/a/b', false],
    ['http://localhost:3000/**', 'http://localhost:3000/a/b?x=1', true],
    ['https://app-?.example.com', 'https://app-1.example.com', true],
    ['https://app-?.example.com', 'https://app-12.example.com', false],
    ['https://app-[0-9].example.com', 'https://app-7.example.com', true],
    ['https://app-[!0-9].example.com', 'https://app-7.example.com', false],
    ['https://{app,www}.example.com', 'https://www.example.com', true],
    ['https://{app,www}.example.com', 'https://api.example.com', false],
    ['https://app.example.com/\\*', 'https://app.example.com/*', true],
    ['https://app.example.com/\\*', 'https://app.example.com/x', false],
    ['myapp://callback', 'myapp://callback', true],
  ])('%s matches %s: %s', (pattern, url, expected) => {
    expect(compileRedirectGlob(pattern)(url)).toBe(expected);
  });

  it('refuses patterns gobwas/glob cannot compile', () => {
    for (const pattern of ['https://[a-', 'https://{a,b', 'https://x\\', 'https://[z-a]']) {
      expect(() => compileRedirectGlob(pattern)).toThrow(GlobSyntaxError);
    }
  });

  it('splits the CLI list at commas outside braces', () => {
    expect(splitPatternList('https://a.example, https://{b,c}.example/**,,')).toEqual(['https://a.example', 'https://{b,c}.example/**']);
    expect(splitPatternList('')).toEqual([]);
  });
});

describe('allowedRedirect (Supabase Auth IsRedirectURLValid, judged as a browser parses the URL)', () => {
  const policy = redirectPolicy('https://app.example.com', ['https://*.preview.example.com/**', 'http://192.168.1.5:3000/**', 'myapp://callback'], 'http://gantry:1');

  // [redirect_to as given, what the Location / mail link carries (null: refused, the site URL is used)]
  it.each<[string, string | null]>([
    // The site URL's scheme, host and port; the allow-list.
    ['https://app.example.com/welcome?x=1#top', 'https://app.example.com/welcome?x=1#top'],
    ['https://app.example.com', 'https://app.example.com/'],
    ['https://app.example.com:443/x', 'https://app.example.com/x'],
    ['https://app.example.com:8443/', null],
    ['http://app.example.com/', null],
    ['https://pr-1.preview.example.com/auth/callback', 'https://pr-1.preview.example.com/auth/callback'],
    ['https://pr-1.preview.example.com', 'https://pr-1.preview.example.com/'],
    ['https://evil.example/', null],
    ['https://app.example.com.evil.example/', null],
    ['myapp://callback', 'myapp://callback'],
    // Backslashes: a browser reads them as '/' in http(s) URLs (the open redirect).
    ['https://evil.example\\@127.0.0.1/', null],
    ['https://evil.example\\@app.example.com/', null],
    ['https://app.example.com\\.evil.example/', null],
    ['https:/\\evil.example/', null],
    ['https:\\\\evil.example/', null],
    ['/\\evil.example', null],
    ['https://app.example.com/a\\b', null],
    // Tab, CR, LF, space: a browser drops tabs and newlines, so the text would hide what it reads.
    ['https://ev\til.example/', null],
    ['https://evil.example\n.app.example.com/', null],
    ['https://app.example.com/\r\nSet-Cookie:x=1', null],
    ['https://app.example.com/\t', null],
    [' https://app.example.com/', null],
    // Relative, scheme-relative, and special schemes written without '//'.
    ['//evil.example/', null],
    ['///evil.example/', null],
    ['/dashboard', null],
    ['dashboard', null],
    ['https:evil.example', null],
    ['https:app.example.com', null],
    ['https:/app.example.com/', null],
    ['https:///app.example.com/', null],
    // Userinfo never: it only serves to make a URL look like another host's.
    ['https://app.example.com@evil.example/', null],
    ['https://evil.example@app.example.com/', null],
    ['https://user:pw@app.example.com/', null],
    ['https://app.example.com%40evil.example/', null],
    // Percent-encoded host characters: refused, whichever host they decode to; in the path they are data.
    ['https://app%2Eexample.com/', null],
    ['https://evil%2Eexample/', null],
    ['https://pr-1.preview.example.com/%2F%2Fevil.example', 'https://pr-1.preview.example.com/%2F%2Fevil.example'],
    // Trailing dots: another origin to a browser, and not a regular host name.
    ['https://app.example.com./', null],
    ['https://pr-1.preview.example.com./x', null],
    // Case and IDN: the host a browser goes to (lower case, punycode) is what is judged and written.
    ['HTTPS://App.Example.COM/Welcome', 'https://app.example.com/Welcome'],
    ['https://PR-1.Preview.Example.com/x', 'https://pr-1.preview.example.com/x'],
    ['https://bücher.preview.example.com/x', 'https://xn--bcher-kva.preview.example.com/x'],
    ['https://\u0430pp.example.com/', null],
    // IP literals: loopback always (native apps), others never, obfuscated forms never (as GoTrue).
    ['http://127.0.0.1:9999/cb', 'http://127.0.0.1:9999/cb'],
    ['http://[::1]:9999/cb', 'http://[::1]:9999/cb'],
    ['http://[0:0:0:0:0:0:0:1]/cb', null],
    ['http://[2001:db8::1]/', null],
    ['http://192.168.1.5:3000/cb', null],
    ['http://2130706433/', null],
    ['http://0x7f.0.0.1/', null],
    ['http://0177.0.0.1/', null],
    ['http://127.1/', null],
    // Script and data schemes never, whatever the allow-list says.
    ['javascript:alert(1)', null],
    ['JavaScript://app.example.com/%0Aalert(1)', null],
    ['data:text/html;base64,PHNjcmlwdD4=', null],
    ['vbscript:msgbox(1)', null],
    ['', null],
  ])('%j -> %j', (url, expected) => {
    expect(allowedRedirect(policy, url)).toBe(expected);
  });

  it('a catch-all allow-list still refuses what a browser would read as another URL', () => {
    const open = redirectPolicy('https://app.example.com', ['**'], 'http://gantry:1');
    expect(allowedRedirect(open, 'https://evil.example/')).toBe('https://evil.example/');
    for (const url of ['javascript:alert(1)', 'data:,x', 'https://evil.example\\@app.example.com/', 'https://a@evil.example/', 'https://ev\nil.example/']) {
      expect(allowedRedirect(open, url)).toBeNull();
    }
  });

  it('allows any port on a localhost site URL, as RFC 8252 native apps need', () => {
    const local = redirectPolicy('http://localhost:3000', [], 'http://gantry:1');
    expect(allowedRedirect(local, 'http://localhost:5173/cb')).toBe('http://localhost:5173/cb');
    expect(allowedRedirect(local, 'https://localhost:5173/cb')).toBeNull();
  });

  it('takes redirect_to, else the Referer, else the site URL; PUBLIC_URL stands in when no site URL is set', () => {
    expect(resolveRedirect(policy, ['https://evil.example/', 'https://app.example.com/from'])).toBe('https://app.example.com/from');
    expect(resolveRedirect(policy, ['https://evil.example\\@app.example.com/', undefined])).toBe('https://app.example.com');
    const unset = redirectPolicy('', [], 'http://gantry:1');
    expect(resolveRedirect(unset, ['http://gantry:1/app'])).toBe('http://gantry:1/app');
    expect(resolveRedirect(unset, ['https://evil.example/'])).toBeNull();
  });
});
