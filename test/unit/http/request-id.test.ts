import { describe, expect, it } from 'vitest';
import { acceptedRequestId, MAX_REQUEST_ID_LENGTH } from '../../../runtime/http/request-id.js';

describe('acceptedRequestId', () => {
  it('keeps a plain token up to the limit', () => {
    for (const id of ['abc', 'req_0123456789abcdef', '2f1e6c1a-2b3c-4d5e-8f90-a1b2c3d4e5f6', 'a.b~c:d/e+f=g@h-i', 'x'.repeat(MAX_REQUEST_ID_LENGTH)]) {
      expect(acceptedRequestId(id)).toBe(id);
    }
  });

  it('refuses what is empty, too long, repeated or not plain', () => {
    for (const id of ['', 'x'.repeat(MAX_REQUEST_ID_LENGTH + 1), 'with space', 'quo"te', 'new\nline', 'tab\t', '<script>', 'ünï', 'semi;colon', 'comma,two']) {
      expect(acceptedRequestId(id)).toBeNull();
    }
    expect(acceptedRequestId(['a', 'b'])).toBeNull();
    expect(acceptedRequestId(undefined)).toBeNull();
  });
});
