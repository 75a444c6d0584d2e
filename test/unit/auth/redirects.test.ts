import { describe, expect, it } from 'vitest';
import { compileRedirectGlob, GlobSyntaxError, splitPatternList } from '../../../runtime/auth/redirect-glob.js';
import { isRedirectAllowed, redirectPolicy, resolveRedirect } from '../../../runtime/auth/redirects.js';

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

describe('isRedirectAllowed (Supabase Auth IsRedirectURLValid)', () => {
  const policy = redirectPolicy('https://app.example.com', ['https://*.preview.example.com/**', 'http://192.168.1.5:3000/**'], 'http://gantry:1');

  it.each([
    ['https://app.example.com/welcome?x=1#top', true],
    ['https://app.example.com:8443/', false],
    ['http://app.example.com/', false],
    ['https://pr-1.preview.example.com/auth/callback', true],
    ['https://pr-1.preview.example.com', false],
    ['https://evil.example/', false],
    ['https://app.example.com.evil.example/', false],
    // Loopback IP literals are always allowed, other IP literals never, decimal hosts never (as GoTrue).
    ['http://127.0.0.1:9999/cb', true],
    ['http://[::1]:9999/cb', true],
    ['http://192.168.1.5:3000/cb', false],
    ['http://2130706433/', false],
    ['javascript:alert(1)', false],
    ['//evil.example/', false],
    ['', false],
  ])('%s -> %s', (url, expected) => {
    expect(isRedirectAllowed(policy, url)).toBe(expected);
  });

  it('allows any port on a localhost site URL, as RFC 8252 native apps need', () => {
    const local = redirectPolicy('http://localhost:3000', [], 'http://gantry:1');
    expect(isRedirectAllowed(local, 'http://localhost:5173/cb')).toBe(true);
    expect(isRedirectAllowed(local, 'https://localhost:5173/cb')).toBe(false);
  });

  it('takes redirect_to, else the Referer, else the site URL; PUBLIC_URL stands in when no site URL is set', () => {
    expect(resolveRedirect(policy, ['https://evil.example/', 'https://app.example.com/from'])).toBe('https://app.example.com/from');
    expect(resolveRedirect(policy, ['https://evil.example/', undefined])).toBe('https://app.example.com');
    const unset = redirectPolicy('', [], 'http://gantry:1');
    expect(resolveRedirect(unset, ['http://gantry:1/app'])).toBe('http://gantry:1/app');
    expect(resolveRedirect(unset, ['https://evil.example/'])).toBeNull();
  });
});
