import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED } from '../../../runtime/calls/jobs/sweep.js';
import { createApiKey } from '../../../runtime/calls/keys.js';
import { expectReferenceTimings } from '../../helpers/calls/reference.js';
import { repoRoot, testEnv } from '../../helpers/platform.js';
import { callsEnv, eventually, startCallsHarness } from '../../helpers/calls/harness.js';
import { startRecordingServer } from '../../helpers/calls/recordings.js';

let rec: Awaited<ReturnType<typeof startRecordingServer>>;
beforeAll(async () => {
  rec = await startRecordingServer();
});
afterAll(async () => {
  await rec?.close();
});

describe('a restart in the middle of an analysis', () => {
  it('stopping the server cancels the running analysis; the next start finishes it', async () => {
    const env = callsEnv();
    const first = await startCallsHarness(env);
    const { key } = await first.newTenant();
    const call = await first.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}/slow.wav`, language: 'en', operator_id: 'op' } });
    await first.waitForCall(key, call.body.id, ['processing']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await first.close({ dropQueue: false });

    const second = await startCallsHarness(env);
    try {
      const during = await second.request('GET', `/v1/calls/${call.body.id}`, { key });
      expect(during.body.status).toBe('processing');
      const done = await second.waitForCall(key, call.body.id);
      expect(done.body.status).toBe('completed');
      expect(done.body.attempts).toBe(2);
      expectReferenceTimings(done.body.result, 0);
      expect(rec.hits.get('/slow.wav')).toBe(2);
    } finally {
      await second.close();
    }
  });

  it('a call whose last allowed attempt is interrupted fails as analysis_interrupted instead of hanging', async () => {
    const env = callsEnv({ CALLS_JOB_RETRY_LIMIT: '0', CALLS_MAINTENANCE_SECONDS: '1' });
    const first = await startCallsHarness(env);
    const { key } = await first.newTenant();
    const call = await first.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}/slow.wav`, language: 'en', operator_id: 'op' } });
    await first.waitForCall(key, call.body.id, ['processing']);
    await first.close({ dropQueue: false });
    const second = await startCallsHarness(env);
    try {
      const done = await second.waitForCall(key, call.body.id);
      expect(done.body).toMatchObject({ status: 'failed', attempts: 1, error: INTERRUPTED, result: null });
    } finally {
      await second.close();
    }
  });

  it('a SIGKILLed process: the job expires and another process runs it again', async () => {
    const env = { ...(await testEnv(callsEnv({ CALLS_JOB_EXPIRE_SECONDS: '5', CALLS_MAINTENANCE_SECONDS: '1' }))) };
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'worker-process.ts')], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const apiUrl = await eventually(async () => /ready (\S+)/.exec(output)?.[1], 30_000, 'the worker process');
    const survivor = await startCallsHarness({ ...env, CALLS_CONCURRENCY: '0' });
    try {
      const tenant = `crash_${Date.now()}`;
      const { key } = await createApiKey(survivor.platform.pool, tenant);
      const submitted = await fetch(`${apiUrl}/v1/calls/analyze`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ audio_url: `${rec.url}/slow.wav`, language: 'en', operator_id: 'op' }),
      });
      const call = (await submitted.json()) as { id: string };
      await survivor.waitForCall(key, call.id, ['processing']);
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      const hitsAtKill = rec.hits.get('/slow.wav');

      const restarted = await startCallsHarness(env);
      try {
        const done = await restarted.waitForCall(key, call.id, ['completed', 'failed'], 30_000);
        expect(done.body.status).toBe('completed');
        expect(done.body.attempts).toBe(2);
        expect(rec.hits.get('/slow.wav')).toBe(hitsAtKill! + 1);
      } finally {
        await restarted.close({ dropQueue: false });
      }
    } finally {
      child.kill('SIGKILL');
      await survivor.close();
    }
  });
});
