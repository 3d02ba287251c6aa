// The TypeScript SDK client for `cargo xtask bench`: runs the same
// suite as bench-client/src/suite.rs and prints `RESULT <json>`.
//
//   node ts-client.mjs --peers DIR --transport stdio|http-json|http-sse
//                      [--server PATH] [--url URL] [--quick]
//
// DIR is tests/peers (the SDK comes from its node_modules, pinned there).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const value = (n) => { const i = argv.indexOf(n); return i >= 0 ? argv[i + 1] : undefined; };
const quick = argv.includes('--quick');
const transport = value('--transport');
const sdk = join(value('--peers'), 'node_modules/@modelcontextprotocol/sdk/dist/esm/client');
const { Client } = await import(pathToFileURL(join(sdk, 'index.js')));
const { StdioClientTransport } = await import(pathToFileURL(join(sdk, 'stdio.js')));
const { StreamableHTTPClientTransport } = await import(pathToFileURL(join(sdk, 'streamableHttp.js')));

const f = quick ? 0.4 : 1.0;
const budget = { latency: 1000 * f, throughput: 800 * f, list: 1000 * f, idle: quick ? 4 : 40 };

function procStatus(field) {
  const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith(field));
  return line ? Number(line.split(/\s+/)[1]) : 0;
}
const text = (n) => Array.from({ length: n }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
const small = text(100);
const large = text(100 * 1024);

async function connect() {
  const client = new Client({ name: 'ts-bench', version: '0.1.0' });
  const t = transport === 'stdio'
    ? new StdioClientTransport({ command: value('--server'), args: ['stdio'], stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(value('--url')));
  await client.connect(t);
  return client;
}

async function call(client, s) {
  const r = await client.callTool({ name: 'echo', arguments: { text: s } });
  if (r.content?.[0]?.text?.length !== s.length) throw new Error('bad echo');
}

const now = () => performance.now();
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.round((sorted.length - 1) * p))];

async function latency(client, s, max) {
  const samples = [];
  const start = now();
  while (samples.length < max && (samples.length < 20 || now() - start < budget.latency)) {
    const t = now();
    await call(client, s);
    samples.push((now() - t) * 1000);
  }
  samples.sort((a, b) => a - b);
  return [pct(samples, 0.5), pct(samples, 0.99)];
}

async function throughput(client, inFlight, s = small) {
  let done = 0;
  let stop = false;
  const start = now();
  const worker = async () => { while (!stop) { await call(client, s); done++; } };
  const workers = Array.from({ length: inFlight }, worker);
  await new Promise((r) => setTimeout(r, budget.throughput));
  stop = true;
  await Promise.all(workers);
  return done / ((now() - start) / 1000);
}

const r = { client: 'typescript', transport };
let t = now();
const client = await connect();
r.connect_ms = now() - t;
{
  const before = procStatus('VmRSS:');
  const idle = [];
  for (let i = 0; i < budget.idle; i++) { const c = await connect(); await call(c, small); idle.push(c); }
  await new Promise((res) => setTimeout(res, 50));
  r.idle_kib_per_conn = (procStatus('VmRSS:') - before) / budget.idle;
  for (const c of idle) await c.close();
}
for (let i = 0; i < 50; i++) await call(client, small);
[r.lat_small_p50_us, r.lat_small_p99_us] = await latency(client, small, 20000);
[r.lat_large_p50_us, r.lat_large_p99_us] = await latency(client, large, 2000);
r.tput_1 = await throughput(client, 1);
r.tput_16 = await throughput(client, 16);
r.tput_256 = await throughput(client, 256);
// The peak of the 100 KiB × 256 workload alone: VmHWM reset to the RSS first.
const peakBefore = procStatus('VmHWM:');
try { writeFileSync('/proc/self/clear_refs', '5'); } catch { /* the peak keeps counting from the start */ }
r.tput_256_large = await throughput(client, 256, large);
r.peak_rss_large_256_kib = procStatus('VmHWM:');
const lists = [];
t = now();
while (lists.length < 3 || (now() - t < budget.list && lists.length < 200)) {
  const s = now();
  const l = await client.listTools();
  if (l.tools.length !== 1000) throw new Error(`tools/list returned ${l.tools.length}`);
  lists.push(now() - s);
}
lists.sort((a, b) => a - b);
r.list_ms = pct(lists, 0.5);
r.peak_rss_kib = Math.max(peakBefore, r.peak_rss_large_256_kib, procStatus('VmHWM:'));
console.log('RESULT ' + JSON.stringify(r));
await client.close();
process.exit(0);
