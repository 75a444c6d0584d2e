/**
 * `node --import tsx bench/cpu-per-request.ts NAME:PID:PORT:LOG[,…] [ROUNDS] [RATE] [SECONDS]`: the CPU a
 * running `gantry serve` spends per 20-row read of the demo's posts, at a fixed request rate, for servers
 * of different commits side by side (rounds interleaved, order alternating). Each server is given by a
 * name, its process id, its PORT and the file its start-up output went to (the anon key is read there).
 * CPU is the process's utime + stime (all threads) from /proc before and after each run, divided by the
 * answers: at a rate every server sustains this compares the work per request, which throughput on a
 * shared machine cannot (its runs spread twenty times a 3% bound). Linux only; 10 ms tick resolution.
 */
import { readFileSync } from 'node:fs';
import { autocannon, type AutocannonResult } from './load.js';
import { median } from './report-format.js';

interface Server {
  readonly name: string;
  readonly pid: number;
  readonly port: number;
  readonly key: string;
}

function parseServer(spec: string): Server {
  const [name, pid, port, log] = spec.split(':');
  if (!name || !pid || !port || !log) throw new Error(`expected NAME:PID:PORT:LOG, got "${spec}"`);
  const key = /anon_key:\s+(\S+)/.exec(readFileSync(log, 'utf8'))?.[1];
  if (!key) throw new Error(`no anon_key line in ${log}`);
  return { name, pid: Number(pid), port: Number(port), key };
}

/** utime + stime of a process, in clock ticks (fields 14 and 15 of /proc/<pid>/stat). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function load(server: Server, rate: number, seconds: number): Promise<AutocannonResult> {
  return autocannon({
    url: `http://127.0.0.1:${server.port}/v1/demo/rest/v1/posts?select=id,title,status&order=id&limit=20`,
    headers: { apikey: server.key },
    connections: 10,
    overallRate: rate,
    duration: seconds,
  });
}

const [spec, rounds = '8', rate = '400', seconds = '8'] = process.argv.slice(2);
if (!spec) throw new Error('usage: bench/cpu-per-request.ts NAME:PID:PORT:LOG[,…] [ROUNDS] [RATE] [SECONDS]');
const servers = spec.split(',').map(parseServer);
const perRequest = new Map<string, number[]>(servers.map((s) => [s.name, []]));
for (const server of servers) await load(server, Number(rate), 3);
for (let round = 0; round < Number(rounds); round++) {
  for (const server of round % 2 ? [...servers].reverse() : servers) {
    const before = cpuTicks(server.pid);
    const result = await load(server, Number(rate), Number(seconds));
    const ticks = cpuTicks(server.pid) - before;
    const micros = (ticks * 10_000) / result.requests.total;
    perRequest.get(server.name)!.push(micros);
    console.log(`${server.name} round ${round + 1}: ${result.requests.total} requests (${result.non2xx + result.errors} not 2xx), ${micros.toFixed(1)} µs CPU a request, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
  }
}
for (const [name, values] of perRequest) console.log(`${name}: median ${median(values).toFixed(1)} µs CPU a request (${values.map((v) => v.toFixed(1)).join(', ')})`);
