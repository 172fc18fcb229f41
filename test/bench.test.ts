import t from "tap";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The benchmarks are run by hand, not timed here; this runs each once at a tiny size so that a
 * change cannot break them unnoticed. It checks that they finish and report no failed request,
 * no lost webhook and no order violation, in the mode the suite runs in.
 */

const root = join(import.meta.dirname, "..");
// Ten benchmarks one after another, each up to 100 s on a busy machine: more than tap's 120 s per file.
t.setTimeout(600_000);

/** BENCH_ROUND_SECONDS 0: a row's turns end with their share of its few requests. */
function run(script: string, env: Record<string, string>, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", script, ...args], { cwd: root, env: { ...process.env, BENCH_ROUND_SECONDS: "0", ...env }, timeout: 100_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

t.test("bench:hiring runs and every row answers without errors", async (t) => {
  const traces = mkdtempSync(join(tmpdir(), "bench-gc-"));
  t.teardown(() => rmSync(traces, { recursive: true, force: true }));
  const res = await run("bench/hiring.ts", { BENCH_CANDIDATES: "400", BENCH_CHUNK: "200", BENCH_REQUESTS: "30", BENCH_SECONDS: "5", BENCH_WARMUP_SECONDS: "0.2", BENCH_GC_TRACE: traces });
  t.equal(res.code, 0, res.stderr.slice(-2000));
  const rows = res.stdout.split("\n").filter((l) => /^\| (first page|90% deep page|filtered page|tags filter) \|/.test(l));
  t.equal(rows.length, 20, "four queries, five ways each");
  for (const row of rows) {
    const cells = row.split("|").map((c) => c.trim());
    t.equal(cells[8], "0", `no failed request: ${cells[1]}, ${cells[2]}`);
    t.ok(Number(cells[5]) > 0, "a throughput");
  }
  t.match(res.stdout, /throughput \/ direct, first page: gateway \d+%/);
  // The bench stops before its rows when the bare server's /answer is not the gateway's answer.
  t.match(res.stdout, /gateway \/ bare server writing the API's answer, first page: by throughput \d+%/);

  // BENCH_GC_TRACE: each server process's collections, summed up by bench:gc.
  const gc = await run("bench/gc.ts", {}, [traces]);
  t.equal(gc.code, 0, gc.stderr);
  for (const name of ["cmd_start_ts.log", "bench_bare-server_ts.log"]) t.match(gc.stdout, new RegExp(`^\\| ${name} \\| [1-9]\\d* \\| [\\d.]+ \\|`, "m"), `${name}: young collections and their pauses`);
});

t.test("bench:webhooks runs and loses nothing", async (t) => {
  const res = await run("bench/webhooks.ts", { BENCH_SUBSCRIPTIONS: "3", BENCH_EVENTS: "10", BENCH_LIVE: "5", BENCH_RATE: "20", BENCH_RECEIVERS: "2", BENCH_WARMUP: "2" });
  t.equal(res.code, 0, res.stderr.slice(-2000));
  t.match(res.stdout, /delivered\s+51 of 51 \(lost 0, duplicates \d+, order violations 0\)/, "3 subscriptions x (2 warm-up + 5 live + 10 backlog) events");
  t.match(res.stdout, /backlog\s+3 x 10 = 30 deliveries queued while the dispatcher was held \(created in [\d.]+ s; 0 arrived before the release\)/, "nothing is delivered while the dispatcher is held");
  t.match(res.stdout, /floor, one process\s+30 POSTs of the backlog \(30 arrived\)/, "the backlog sent again by the bare loop");
  t.match(res.stdout, /floor, own process\s+the same \(30 arrived\) by the same loop with node:http/);
  t.match(res.stdout, /floor, own process\s+the same \(30 arrived\) by the same loop with undici/, "the floor by the notifier's client too");
  t.match(res.stdout, /CPU per delivery\s+system process [\d.]+ ms/);
});

t.test("bench:due runs, finds every queue due and counts every pending notification at each backlog", async (t) => {
  const res = await run("bench/due-work.ts", { BENCH_QUEUES: "5", BENCH_PENDING: "4", BENCH_STUCK: "0,50", BENCH_LOOKS: "2" });
  t.equal(res.code, 0, res.stderr.slice(-2000));
  t.match(res.stdout, /^20\s+[\d.]+\s+[\d.]+\s+5\s+[\d.]+\s+20$/m, "5 queues of 4: all five due, 20 counted");
  t.match(res.stdout, /^70\s+[\d.]+\s+[\d.]+\s+5\s+[\d.]+\s+70$/m, "one of them 50 longer: still five, 70 counted");
});

t.test("bench:tracking projects runs and every row answers without errors", async (t) => {
  const res = await run("bench/tracking.ts", { BENCH_ONLY: "projects", BENCH_PROJECTS: "300", BENCH_USERS: "5", BENCH_REQUESTS: "20", BENCH_SECONDS: "5", BENCH_WARMUP_SECONDS: "0.2" });
  t.equal(res.code, 0, res.stderr.slice(-2000));
  const rows = res.stdout.split("\n").filter((l) => /^\| (filtered, sorted page|first page|90% deep page)/.test(l));
  t.equal(rows.length, 6, "three queries, gateway and bare server each");
  for (const row of rows) {
    const cells = row.split("|").map((c) => c.trim());
    t.equal(cells[8], "0", `no failed request: ${cells[1]}, ${cells[2]}`);
    t.ok(Number(cells[5]) > 0, "a throughput");
  }
  t.match(res.stdout, /deep page cost \/ first page cost \(gateway, by throughput\): [\d.]+/);
});

t.test("bench:tracking time entries runs and every row answers without errors", async (t) => {
  const res = await run("bench/tracking.ts", { BENCH_ONLY: "time-entries", BENCH_TIME_ENTRIES: "600", BENCH_REQUESTS: "20", BENCH_SECONDS: "5", BENCH_WARMUP_SECONDS: "0.2" });
  t.equal(res.code, 0, res.stderr.slice(-2000));
  const rows = res.stdout.split("\n").filter((l) => /^\| (month|since|current|start-then-stop)/.test(l));
  t.equal(rows.length, 12, "five queries, gateway and bare server each, and the two months' floors");
  for (const row of rows) {
    const cells = row.split("|").map((c) => c.trim());
    // The bare server is only the yardstick: its writes may meet the system's own on SQLite's one writer.
    if (cells[2].startsWith("gateway")) t.equal(cells[7], "0", `no failed request: ${cells[1]}, ${cells[2]}`);
    t.ok(Number(cells[4]) > 0, `a throughput: ${cells[1]}, ${cells[2]}`);
  }
  t.match(res.stdout, /late month cost \/ early month cost \(gateway\): by throughput [\d.]+/);
  t.match(res.stdout, /gateway \/ floor, month, late in the history: server CPU per request ([\d.]+x|n\/a)/);
});

t.test("bench:layers runs and prints each layer", async (t) => {
  const res = await run("bench/layers.ts", { BENCH_REQUESTS: "30", BENCH_PAIRS: "10", BENCH_ROUNDS: "1" });
  t.equal(res.code, 0, res.stderr.slice(-2000));
  const rows = res.stdout.split("\n").filter((l) => /^\| (the store|the RPC|the bare server's|the start-then-stop|HTTP:)/.test(l));
  t.equal(rows.length, 14, "eight layers, the pair's four, and the bare pair after a turn and after a sleep");
  t.ok(rows.some((r) => /^\| HTTP: the gateway's start-then-stop pair, per pair \| 10 \|/.test(r)), "the gateway's pair, 10 of them");
  for (const row of rows) {
    const [mean, least] = [Number(row.split("|")[3]), Number(row.split("|")[4])];
    t.ok(mean > 0 && least > 0 && least <= mean, `a mean and a least round's CPU time: ${row}`);
  }
  t.match(res.stdout, /the gateway over the bare server \(the gateway's route - bare route, the store's query\): -?[\d.]+/);
  t.match(res.stdout, /a pair's writes in the service over the bare server's \(the RPCs in memory - the two knex transactions\): -?[\d.]+/);
  t.match(res.stdout, /of which the gateway's own \(the gateway's pair - bare routes calling the same RPCs\): -?[\d.]+/);
  t.match(res.stdout, /the same transactions after the thread slept 1 ms, over after a turn of the loop \(the machine's, not the code's\): -?[\d.]+/);
});

t.test("bench:files runs and streams every format both ways", async (t) => {
  const res = await run("bench/report-files.ts", { BENCH_ROWS: "300" });
  t.equal(res.code, 0, res.stderr.slice(-2000));
  const rows = res.stdout.split("\n").filter((l) => /^\| (csv|xlsx|pdf) \|/.test(l));
  t.equal(rows.length, 6, "three formats, in memory and over the network");
  for (const row of rows) t.ok(Number(row.split("|")[4]) > 0, `a file: ${row}`);
});

t.test("bench:reports runs and every row answers without errors", async (t) => {
  const res = await run("bench/reports.ts", { BENCH_ENTRIES: "600", BENCH_REQUESTS: "20", BENCH_SECONDS: "5", BENCH_WARMUP_SECONDS: "0.2" });
  t.equal(res.code, 0, res.stderr.slice(-2000));
  const rows = res.stdout.split("\n").filter((l) => /^\| (summary|search|totals|weekly)/.test(l));
  t.equal(rows.length, 12, "six queries, gateway and floor each");
  for (const row of rows) {
    const cells = row.split("|").map((c) => c.trim());
    t.equal(cells[9], "0", `no failed request: ${cells[1]}, ${cells[2]}`);
    t.ok(Number(cells[5]) > 0, `a throughput: ${cells[1]}, ${cells[2]}`);
  }
  const exports = res.stdout.split("\n").filter((l) => /^\| csv, year \|/.test(l));
  t.equal(exports.length, 2, "the export, gateway and floor");
  for (const row of exports) t.equal(row.split("|")[4].trim(), "600", `every entry exported: ${row}`);
  t.match(res.stdout, /deep \/ first page cost \(seek\), gateway: by throughput [\d.]+/);
  t.match(res.stdout, /figures compared before measuring: all agree/);
});

t.test("bench:portability export runs and the ZIP holds every entry", async (t) => {
  const res = await run("bench/portability.ts", { BENCH_ONLY: "export", BENCH_EXPORT_ENTRIES: "300" });
  t.equal(res.code, 0, res.stderr.slice(-2000));
  const row = res.stdout.split("\n").find((l) => /^\| 300 \|/.test(l));
  t.ok(row, "the export's row");
  const cells = row!.split("|").map((c) => c.trim());
  t.same([cells[7], cells[8]], ["300", "300"], "every entry in the JSON files and the CSV");
});

t.test("bench:portability import runs and imports every entry, then skips them all", async (t) => {
  const res = await run("bench/portability.ts", { BENCH_ONLY: "import", BENCH_IMPORT_ENTRIES: "300" });
  t.equal(res.code, 0, res.stderr.slice(-2000));
  const figures = JSON.parse(res.stdout.slice(res.stdout.indexOf("{")));
  t.equal(figures.import.created, 300);
  t.equal(figures.again.skipped, 300);
});
