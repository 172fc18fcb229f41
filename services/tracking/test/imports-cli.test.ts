import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import t from "tap";
import { ConnectError } from "@connectrpc/connect";
import { startTestSystem } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { runAdmin } from "../../../cmd/admin.js";
import * as layout from "../portability/layout.js";
import { trackingWorld } from "./tracking-support.js";
import { csvRow, detailedCsv, realExport, zipOf, type Person } from "./import-fixtures.js";

/**
 * `npm run -s admin -- track:import --workspace <id> [--dry-run] <file>...`: the same import as
 * the API's, from files on disk, as the workspace's first admin; here also this server's own
 * workspace ZIP, whose time entries as JSON are read in preference to its CSV.
 */

const clock = new ManualClock(new Date("2026-03-04T10:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner, tracking } = world;
const wid = owner.workspaceId;
const member = await world.join("member");
const dir = t.testdir();
const admin = (...argv: string[]) => runAdmin(["track:import", "--workspace", String(wid), ...argv], sys.directory) as Promise<Record<string, any>>;

const people: Person[] = [
  { uid: 21, email: owner.email, name: "Owner" },
  { uid: 22, email: member.email, name: "Member" },
];

/** Our own export: the real layout plus a year of entries in the v9 shape, and the same year as CSV (which differs, to show it is not read). */
const ownExport = () =>
  zipOf({
    ...realExport(people),
    [layout.timeEntriesFile(2025)]: JSON.stringify([
      { id: 1, workspace_id: 9, user_id: 21, project_id: 601, task_id: 801, description: "Spec", billable: false, start: "2025-12-30T22:30:00+02:00", stop: "2025-12-31T00:00:00+02:00", duration: 5400, tags: ["urgent"], tag_ids: [701], at: "2026-01-01T00:00:00Z", server_deleted_at: null, unknown_field: 1 },
      { id: 2, workspace_id: 9, user_id: 22, project_id: null, task_id: null, description: "Gone", billable: false, start: "2025-12-30T10:00:00Z", stop: "2025-12-30T11:00:00Z", duration: 3600, tags: [], server_deleted_at: "2025-12-31T00:00:00Z" },
    ]),
    [layout.timeEntriesFile(2026)]: JSON.stringify([
      { id: 3, workspace_id: 9, user_id: 22, project_id: 602, description: "Still running", billable: false, start: "2026-03-04T09:00:00Z", stop: null, duration: -1772614800, tag_ids: [702] },
      { id: 4, workspace_id: 9, user_id: 22, project_id: 603, description: null, billable: true, start: "2026-01-02T08:00:00Z", stop: "2026-01-02T08:10:00Z", duration: 600, tags: null },
    ]),
    [layout.DETAILED_CSV_FILE]: detailedCsv([csvRow({ email: owner.email, description: "From the CSV", start: "2025-06-01 10:00:00", duration: "00:10:00" })]),
  });

async function entryCount() {
  return Number((await tracking("time_entries").where({ workspace_id: wid }).count({ n: "*" }).first())!.n);
}

t.test("a dry run prints what would be created, matched and skipped, and writes nothing", async (t) => {
  const zip = join(dir, "ours.zip");
  await writeFile(zip, await ownExport());
  const before = await entryCount();
  const out = await admin("--dry-run", zip);
  t.match(out, { state: "finished", dry_run: true, entries_total: "3", created: { clients: "2", projects: "3", tasks: "2", tags: "2", time_entries: "3" }, matched: { users: "2" } });
  t.equal(await entryCount(), before);
});

t.test("our own workspace ZIP: entries from its JSON (not its CSV), a running one stays running", async (t) => {
  const zip = join(dir, "ours.zip");
  await writeFile(zip, await ownExport());
  const out = await admin(zip);
  t.match(out, { state: "finished", entries_total: "3", entries_done: "3", created: { time_entries: "3" } });
  const rows = await tracking("time_entries").where({ workspace_id: wid }).orderBy("start");
  t.same(rows.map((r) => r.description), ["Spec", null, "Still running"], "the deleted entry and the CSV's are not imported");
  t.equal(new Date(rows[0].start).toISOString(), "2025-12-30T20:30:00.000Z");
  t.equal(Number(rows[0].user_id), owner.id);
  t.equal(Number(rows[2].user_id), member.id);
  t.equal(Number(rows[2].running_user_id), member.id);
  t.equal(rows[2].stop, null);
  const current = await sys.api("GET", "/api/v9/me/time_entries/current", { auth: member.auth });
  t.match(current.body, { description: "Still running", duration: -1772614800 });

  const again = await admin(zip);
  t.match(again, { created: { time_entries: "0", projects: "0" }, skipped: { time_entries: "3" } }, "a second run creates nothing");
  t.equal(await entryCount(), 3);
});

t.test("several CSV files at once, and a bad one refused with nothing written", async (t) => {
  const a = join(dir, "a.csv");
  const b = join(dir, "b.csv");
  const bad = join(dir, "bad.csv");
  await writeFile(a, detailedCsv([csvRow({ email: member.email, project: "CLI", description: "one", start: "2026-02-01 10:00:00", duration: "00:10:00" })], { bom: true }));
  await writeFile(b, detailedCsv([csvRow({ email: member.email, project: "CLI", description: "two", start: "2026-02-02 10:00:00", duration: "00:20:00" })], { currency: "GBP" }));
  await writeFile(bad, detailedCsv([csvRow({ email: member.email, start: "2026-02-03 10:00", duration: "00:20:00" })]));
  const before = await entryCount();
  const refused = await admin(a, b, bad).catch((err: unknown) => err);
  t.ok(refused instanceof ConnectError, "refused");
  t.equal((refused as ConnectError).rawMessage, 'bad.csv: line 2: invalid Start time "10:00": expected HH:MM:SS');
  t.equal(await entryCount(), before);
  const out = await admin(a, b);
  t.match(out, { files: ["a.csv", "b.csv"], created: { projects: "1", time_entries: "2" } });
  t.equal(await entryCount(), before + 2);
});

t.test("a file larger than one part goes in several", async (t) => {
  const rows = Array.from({ length: 9000 }, (_, i) => csvRow({ email: member.email, project: "Bulk", description: `entry ${i} ${"x".repeat(60)}`, start: `2025-0${1 + (i % 9)}-1${i % 10} 0${i % 10}:00:00`, duration: "00:01:00" }));
  const csv = detailedCsv(rows);
  t.ok(csv.length > 737_280, "over one part");
  const path = join(dir, "bulk.csv");
  await writeFile(path, csv);
  const out = await admin(path);
  t.match(out, { entries_total: "9000", created: { time_entries: "9000" } });
});

t.test("usage: a workspace and at least one file", async (t) => {
  await t.rejects(runAdmin(["track:import", "--workspace", String(wid)], sys.directory), /<file> is required\nusage: npm run -s admin -- track:import --workspace <id> <file>\.\.\. \[--dry-run\]/);
});
