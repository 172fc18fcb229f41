import { startBenchSystem, type BenchSystem } from "./measure.js";
import { cpuMs, log, rssMiB } from "./support.js";
import { signup } from "./reports/seed.js";
import { detailedCsvHeaders } from "../services/tracking/reports/formats/index.js";

/**
 * `npm run bench:portability` (its `import` section; alone: `npx tsx bench/portability-import.ts`): BENCH_IMPORT_ENTRIES
 * (100,000) time entries as the real detailed report's CSV, uploaded through the gateway (base64
 * parts of 720 KiB, as the API takes them) into a fresh workspace of the system running in its own
 * process, then followed to the end of the import job. Prints the entries per second (from the
 * first byte uploaded to the job finished; the bound is 5,000), the system process's CPU seconds and
 * µs of CPU per entry (what other load on the machine changes little), and how much the system's
 * memory (RSS) grew at its peak over what it was before (the bound is 150 MiB), whole and per phase
 * (the parts; the last part, which checks the whole file; the job), then imports the same file
 * again (everything skipped) and prints that too. BENCH_PART: the bytes of an upload part (737,280,
 * the most the API takes).
 */

const ENTRIES = Number(process.env.BENCH_IMPORT_ENTRIES ?? 100_000);
const PART = Number(process.env.BENCH_PART ?? 737_280);
const MIN_RATE = 5_000;
const MAX_GROWTH_MIB = 150;

const pad = (n: number) => String(n).padStart(2, "0");
const hms = (s: number) => `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
const quoted = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** A year of generated entries of one person: 50 projects of 10 clients, tasks, tags, varied descriptions. */
function csv(email: string): Buffer {
  const lines = [detailedCsvHeaders("USD").join(",")];
  for (let i = 0; i < ENTRIES; i++) {
    const day = new Date(Date.UTC(2025, 0, 1) + Math.floor((i * 365) / ENTRIES) * 86_400_000).toISOString().slice(0, 10);
    const start = 6 * 3600 + (i % 40) * 420;
    const seconds = 300 + ((i * 7919) % 3600);
    const project = i % 11 === 0 ? "" : `Project ${i % 50}`;
    const row = [
      "Bench User", email, project ? `Client ${i % 10}` : "", project, project && i % 3 === 0 ? `Task ${i % 7}` : "",
      i % 7 === 0 ? `Review of the plan, "notes" #${i}` : `Ticket ${10_000 + i}: fix and test`, i % 2 ? "Yes" : "No",
      day, hms(start), day, hms(start + seconds), hms(seconds), i % 4 ? "" : "billable, urgent", i % 2 ? (seconds / 36).toFixed(2) : "",
    ];
    lines.push(row.map(quoted).join(","));
  }
  return Buffer.from(`\uFEFF${lines.join("\n")}\n`);
}

async function api(port: number, token: string, method: string, path: string, body?: unknown): Promise<Record<string, any>> {
  // A kept-alive connection the gateway closed (after 5 s idle) resets the next request on it: a GET is asked again.
  const res = await send(port, token, method, path, body).catch((err: unknown) => {
    if (method !== "GET") throw err;
    return send(port, token, method, path, body);
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

function send(port: number, token: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from(`${token}:api_token`).toString("base64")}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Peak RSS of the system process per phase (sampled every 20 ms): the parts, the last part (the check of the whole file), the job. */
function phases(pid: number) {
  const peaks: Record<string, number> = {};
  let phase = "parts";
  const sample = () => (peaks[phase] = Math.max(peaks[phase] ?? 0, rssMiB(pid) ?? 0));
  const timer = setInterval(sample, 20);
  return {
    peaks,
    enter(next: string) {
      sample();
      phase = next;
    },
    stop() {
      sample();
      clearInterval(timer);
      return Math.max(...Object.values(peaks));
    },
  };
}

/** Uploads the file in parts and follows the job; answers the finished job, the seconds, the system's CPU seconds and the peak RSS (whole and per phase). */
async function importOnce(port: number, pid: number, token: string, wid: number, data: Buffer) {
  const sampler = phases(pid);
  const cpuBefore = cpuMs(pid);
  const started = performance.now();
  const base = `/api/v9/workspaces/${wid}/imports`;
  let job = await api(port, token, "POST", base, { more_files: true, time_zone: "UTC" });
  for (let offset = 0; offset < data.length; offset += PART) {
    const last = offset + PART >= data.length;
    if (last) sampler.enter("check");
    const content = data.subarray(offset, offset + PART).toString("base64");
    job = await api(port, token, "POST", `${base}/${job.id}/files`, { file: { name: "detailed.csv", content }, more_files: !last });
  }
  const uploaded = performance.now();
  sampler.enter("job");
  while (job.state === "queued" || job.state === "running") {
    await new Promise((r) => setTimeout(r, 100));
    job = await api(port, token, "GET", `${base}/${job.id}`);
  }
  const peak = sampler.stop();
  const cpuAfter = cpuMs(pid);
  if (job.state !== "finished") throw new Error(`import ${job.state}: ${job.error}`);
  const cpuSeconds = cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / 1000;
  return { job, seconds: (performance.now() - started) / 1000, uploadSeconds: (uploaded - started) / 1000, cpuSeconds, peak, peaks: sampler.peaks };
}

/** The import section of `npm run bench:portability` (BENCH_ONLY=import), on a system already started. */
export async function importSection(system: BenchSystem): Promise<void> {
  log(`import bench: ${ENTRIES} entries, ${system.mode}`);
  const owner = await signup(system.ports.gateway, "importer");
  const me = await api(system.ports.gateway, owner.token, "GET", "/api/v9/me");
  const data = csv(me.email);
  const pid = system.process.pid!;
  const before = rssMiB(pid) ?? 0;
  const first = await importOnce(system.ports.gateway, pid, owner.token, owner.workspaceId, data);
  const beforeAgain = rssMiB(pid) ?? 0;
  const again = await importOnce(system.ports.gateway, pid, owner.token, owner.workspaceId, data);
  const growth = (run: { peaks: Record<string, number> }, from: number) => Object.fromEntries(Object.entries(run.peaks).map(([phase, mib]) => [phase, round(mib - from)]));
  // The system's CPU time per entry: what the import costs whatever else the machine runs (with MySQL the database server's own not in it).
  const cpu = (run: { cpuSeconds?: number }) => (run.cpuSeconds === undefined ? {} : { system_cpu_seconds: round(run.cpuSeconds), cpu_us_per_entry: Math.round((run.cpuSeconds * 1e6) / ENTRIES) });
  const figures = {
    mode: system.mode,
    entries: ENTRIES,
    csv_bytes: data.length,
    rss_before_mib: round(before),
    import: { seconds: round(first.seconds), upload_seconds: round(first.uploadSeconds), entries_per_second: Math.round(ENTRIES / first.seconds), ...cpu(first), created: first.job.created.time_entries, rss_growth_mib: round(first.peak - before), rss_growth_by_phase_mib: growth(first, before) },
    again: { seconds: round(again.seconds), entries_per_second: Math.round(ENTRIES / again.seconds), ...cpu(again), skipped: again.job.skipped.time_entries, rss_growth_mib: round(again.peak - beforeAgain), rss_growth_by_phase_mib: growth(again, beforeAgain) },
    bounds: { entries_per_second: MIN_RATE, rss_growth_mib: MAX_GROWTH_MIB },
  };
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  if (figures.import.entries_per_second < MIN_RATE) log(`below ${MIN_RATE} entries/s`);
  if (figures.import.rss_growth_mib > MAX_GROWTH_MIB) log(`memory grew over ${MAX_GROWTH_MIB} MiB`);
}

function round(n: number) {
  return Math.round(n * 10) / 10;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const system = await startBenchSystem();
  try {
    await importSection(system);
  } finally {
    await system.stop();
  }
}
