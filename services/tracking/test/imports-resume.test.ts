import t from "tap";
import { startTestSystem } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import type { TrackingService } from "../index.js";
import { ImportWorker, type ImportWorkerOptions } from "../imports/worker.js";
import { trackingWorld } from "./tracking-support.js";
import { csvRow, detailedCsv } from "./import-fixtures.js";

/**
 * A crash mid-import leaves a job that resumes: each batch of entries commits with the job's
 * progress, so a run cut short (here: a fault right after the second batch commits, as a killed
 * process would leave it) is taken up from there by the next pass, and the import ends with every
 * entry once.
 */

const clock = new ManualClock(new Date("2026-03-04T10:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner, tracking } = world;
const wid = owner.workspaceId;
const member = await world.join("member");

// The service's own worker stops: this test's worker (small batches, a crash on demand) runs the jobs.
const service = sys.services.get("tracking") as TrackingService;
await service.imports.stop();
const { storage, peers, deps } = service.imports as unknown as { storage: ConstructorParameters<typeof ImportWorker>[0]; peers: ConstructorParameters<typeof ImportWorker>[1]; deps: ConstructorParameters<typeof ImportWorker>[2] };
let crashAfter: number | undefined;
const options: ImportWorkerOptions = {
  batch: 3,
  afterBatch: (_job, batches) => {
    if (batches === crashAfter) throw new Error("simulated crash");
  },
};
const worker = new ImportWorker(storage, peers, { ...deps, log: deps.log.child({ level: "silent" }) }, options);
t.teardown(() => worker.stop());

const rows = Array.from({ length: 10 }, (_, i) =>
  csvRow({ email: i % 2 ? member.email : "someone.new@example.org", project: `Project ${i % 3}`, description: `Entry ${i}`, start: `2026-02-${String(10 + i).padStart(2, "0")} 09:00:00`, duration: "01:00:00", tags: "resumed" }),
);
const body = { files: [{ name: "big.csv", content: detailedCsv(rows).toString("base64") }], time_zone: "UTC" };
const entries = async () => Number((await tracking("time_entries").where({ workspace_id: wid }).count({ n: "*" }).first())!.n);
const job = async (id: number) => (await sys.api("GET", `/api/v9/workspaces/${wid}/imports/${id}`, { auth: owner.auth })).body;

t.test("a crash after two batches leaves a running job with its progress; the next pass finishes it", async (t) => {
  const started = await sys.api("POST", `/api/v9/workspaces/${wid}/imports`, { auth: owner.auth, body });
  t.equal(started.status, 200, started.text);
  t.equal(started.body.state, "queued");
  crashAfter = 2;
  await worker.tick();
  t.match(await job(started.body.id), { state: "running", entries_done: 6, created: { time_entries: 6, projects: 3, tags: 1, users: 1 } });
  t.equal(await entries(), 6, "what committed stays");

  crashAfter = undefined;
  await worker.tick();
  t.match(await job(started.body.id), { state: "finished", entries_total: 10, entries_done: 10, created: { time_entries: 10, projects: 3, tags: 1, users: 1 }, invited: ["someone.new@example.org"] });
  t.equal(await entries(), 10, "every entry once");
  t.equal(Number((await tracking("projects").where({ workspace_id: wid }).count({ n: "*" }).first())!.n), 3, "no project twice");
  t.equal(Number((await tracking("import_entry_origins").where({ workspace_id: wid }).count({ n: "*" }).first())!.n), 5);
  t.equal((await world.accounts("invitations").where({ email: "someone.new@example.org" })).length, 1, "invited once across the runs");
  t.equal((await world.events("import")).length, 1, "one event, when the job ends");
  t.equal(Number((await tracking("import_file_parts").count({ n: "*" }).first())!.n), 0, "the upload is dropped once done");
});

t.test("a re-import cut short resumes too, skipping what is there and creating only what is new", async (t) => {
  const more = [...rows, csvRow({ email: member.email, description: "Entry 10", start: "2026-02-25 09:00:00", duration: "00:30:00" })];
  const started = await sys.api("POST", `/api/v9/workspaces/${wid}/imports`, { auth: owner.auth, body: { ...body, files: [{ name: "more.csv", content: detailedCsv(more).toString("base64") }] } });
  crashAfter = 1;
  await worker.tick();
  t.match(await job(started.body.id), { state: "running", entries_done: 3, skipped: { time_entries: 3 } });
  crashAfter = undefined;
  await worker.tick();
  t.match(await job(started.body.id), { state: "finished", entries_done: 11, created: { time_entries: 1 }, skipped: { time_entries: 10 } });
  t.equal(await entries(), 11);
});
