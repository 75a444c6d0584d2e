import { describe, expect, it } from 'vitest';
import { relyingParty } from '../../../runtime/settings/webauthn-rp.js';

describe('relyingParty', () => {
  it('takes the configured id and origins', () => {
    expect(relyingParty('example.com', ['https://app.example.com'], 'https://site.test', 'http://127.0.0.1:8000', 'ref1')).toEqual({
      id: 'example.com',
      name: 'ref1',
      origins: ['https://app.example.com'],
    });
  });

  it('falls back to the site URL, then (for none or a custom scheme) to PUBLIC_URL', () => {
    expect(relyingParty('', [], 'https://app.example.com:8443/welcome', 'http://127.0.0.1:8000', 'r')).toEqual({
      id: 'app.example.com',
      name: 'r',
      origins: ['https://app.example.com:8443'],
    });
    for (const site of ['', 'myapp://callback']) {
      expect(relyingParty('', [], site, 'http://localhost:8000', 'r')).toEqual({ id: 'localhost', name: 'r', origins: ['http://localhost:8000'] });
    }
  });
});
