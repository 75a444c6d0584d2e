import bcrypt from 'bcryptjs';
import { afterAll, describe, expect, it } from 'vitest';
import { DUMMY_PASSWORD_HASH, PasswordPool, passwordProblem } from '../../../runtime/auth/credentials/passwords.js';

const pool = new PasswordPool(2);
afterAll(() => pool.close());

describe('PasswordPool', () => {
  it('hashes with bcrypt cost 10 and verifies', async () => {
    const hash = await pool.hash('correct horse');
    expect(hash).toMatch(/^\$2[aby]\$10\$/);
    expect(bcrypt.compareSync('correct horse', hash)).toBe(true);
    expect(await pool.compare('correct horse', hash)).toBe(true);
    expect(await pool.compare('wrong horse', hash)).toBe(false);
  });

  it('has a dummy hash that is a real cost-10 bcrypt hash', async () => {
    expect(bcrypt.getRounds(DUMMY_PASSWORD_HASH)).toBe(10);
    expect(await pool.compare('anything', DUMMY_PASSWORD_HASH)).toBe(false);
  });

  it('answers 20 concurrent compares (their effect on latency is measured in bench/auth-signin-load.ts)', async () => {
    const hash = await pool.hash('password1');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => pool.compare(i % 2 ? 'password1' : 'wrong', hash)));
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i % 2 === 1));
  });

  it('rejects jobs after close', async () => {
    const closing = new PasswordPool(1);
    await closing.close();
    await expect(closing.hash('x')).rejects.toThrow('password pool is closed');
  });
});

describe('passwordProblem', () => {
  it('counts characters for the minimum and bytes for bcrypt limit', () => {
    expect(passwordProblem('12345')).toBe('too_short');
    expect(passwordProblem('123456')).toBeNull();
    expect(passwordProblem('ü'.repeat(6))).toBeNull();
    expect(passwordProblem('a'.repeat(72))).toBeNull();
    expect(passwordProblem('a'.repeat(73))).toBe('too_long');
    expect(passwordProblem('ü'.repeat(37))).toBe('too_long');
  });
});
