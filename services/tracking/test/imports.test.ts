import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import * as layout from "../portability/layout.js";
import { trackingWorld } from "./tracking-support.js";
import { csvRow, declaredSize, detailedCsv, realExport, renamed, zipOf, type Person } from "./import-fixtures.js";

/**
 * Imports over the API (POST /api/v9/workspaces/{id}/imports, .../imports/{id}/files, GET
 * .../imports/{id}): the real service's workspace ZIP and detailed CSV files matched by name and
 * e-mail into the workspace, once whatever the number of runs; a malformed file refused whole,
 * nothing written.
 */

const clock = new ManualClock(new Date("2026-03-04T10:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner, tracking } = world;
const wid = owner.workspaceId;
await world.setPlan(true);
const member = await world.join("member");
const stranger = await sys.signup("stranger");
const outsider = "newcomer@example.org";

const people: Person[] = [
  { uid: 11, email: owner.email, name: "Owner" },
  { uid: 12, email: member.email.toUpperCase(), name: "Member" },
  { uid: 13, email: outsider, name: "Newcomer" },
];

const base = `/api/v9/workspaces/${wid}/imports`;
const file = (name: string, data: Buffer) => ({ name, content: data.toString("base64") });

/** Starts an import with `files` and, unless refused or a dry run, waits for the worker to finish it. */
async function importFiles(files: { name: string; content: string }[], options: { user?: TrackUser; dryRun?: boolean; timeZone?: string } = {}) {
  const res = await sys.api("POST", base, { auth: (options.user ?? owner).auth, body: { files, dry_run: options.dryRun ?? false, time_zone: options.timeZone ?? "UTC" } });
  if (res.status !== 200 || options.dryRun) return res;
  return finished(res.body.id);
}

async function finished(id: number, user: TrackUser = owner) {
  for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    const res = await sys.api("GET", `${base}/${id}`, { auth: user.auth });
    if (res.status !== 200 || ["finished", "failed"].includes(res.body.state)) return res;
  }
  throw new Error(`import ${id} did not finish`);
}

/** How many rows each table the import writes holds (what a refused import must leave as it was). */
async function counts() {
  const out: Record<string, number> = {};
  for (const table of ["clients", "projects", "tasks", "tags", "project_users", "time_entries", "import_entry_origins"]) {
    out[table] = Number((await tracking(table).count({ n: "*" }).first())!.n);
  }
  return out;
}

const csvRows = [
  csvRow({ email: owner.email, client: "Acme", project: "Website", task: "Design", description: 'Kick-off, "phase 1"\nwith notes', billable: true, start: "2026-02-02 09:00:00", duration: "01:30:00", tags: "urgent, review" }),
  csvRow({ email: member.email, project: "Secret", description: "Research", start: "2026-02-02 13:00:00", duration: "00:45:00" }),
  csvRow({ email: outsider, client: "Acme", project: "Website", description: "Contract work", start: "2026-02-03 08:00:00", duration: "02:00:00", tags: "brand new tag" }),
  csvRow({ email: member.email, description: "No project", start: "2026-02-04 10:00:00", duration: "00:10:00" }),
];

t.test("the real service's workspace ZIP and a detailed CSV import by name and e-mail", async (t) => {
  const zip = await zipOf(realExport(people));
  const before = await counts();
  const res = await importFiles([file("toggl_workspace_900001_export_abc.zip", zip), file("detailed.csv", detailedCsv(csvRows, { bom: true, currency: "EUR" }))]);
  t.equal(res.status, 200, res.text);
  t.equal(res.body.state, "finished", res.text);
  t.match(res.body, {
    entries_total: 4,
    entries_done: 4,
    created: { clients: 2, projects: 3, tasks: 2, tags: 3, project_users: 2, users: 1, time_entries: 4 },
    matched: { users: 2 },
    skipped: { project_users: 1, time_entries: 0 },
    invited: [outsider],
  });
  const after = await counts();
  t.equal(after.time_entries - before.time_entries, 4);

  const clients = (await sys.api("GET", `/api/v9/workspaces/${wid}/clients?status=both`, { auth: owner.auth })).body;
  t.same(clients.map((c: { name: string; archived: boolean }) => [c.name, c.archived]), [["Acme", false], ["Old Client", true]]);
  const projects = (await sys.api("GET", `/api/v9/workspaces/${wid}/projects?active=both`, { auth: owner.auth })).body;
  const clientId = (name: string) => clients.find((c: { name: string }) => c.name === name).id;
  t.match(
    Object.fromEntries(projects.map((p: { name: string }) => [p.name, p])),
    { Website: { client_id: clientId("Acme"), is_private: false, active: true }, Secret: { client_id: null, is_private: true, color: "#c9806b" }, Legacy: { active: false, client_id: clientId("Old Client") } },
  );
  const entries = (await sys.api("GET", `/api/v9/me/time_entries?start_date=2026-02-01&end_date=2026-02-28`, { auth: owner.auth })).body;
  const kickoff = entries.find((e: { description: string }) => e.description.startsWith("Kick-off"));
  t.match(kickoff, { description: 'Kick-off, "phase 1"\nwith notes', start: "2026-02-02T09:00:00+00:00", duration: 5400, billable: true });
  t.same([...kickoff.tags].sort(), ["review", "urgent"]);
  // The newcomer's entry is the importing admin's, their address kept beside it; they are invited.
  const contract = entries.find((e: { description: string }) => e.description === "Contract work");
  t.ok(contract, "the entry of someone without an account is the importer's");
  t.same(await tracking("import_entry_origins").where({ time_entry_id: contract.id }).select("email"), [{ email: outsider }]);
  t.equal((await world.accounts("invitations").where({ email: outsider })).length, 1, "the newcomer is invited into the organization");
  const memberEntries = (await sys.api("GET", `/api/v9/me/time_entries?start_date=2026-02-01&end_date=2026-02-28`, { auth: member.auth })).body;
  t.equal(memberEntries.length, 2, "the member's entries are theirs, matched by e-mail ignoring case");
  t.equal((await world.events("import")).length, 1, "one event for the whole import");
  t.equal((await world.events("time_entry")).length, 0, "none per entry");
});

t.test("importing the same files again creates nothing", async (t) => {
  const zip = await zipOf(realExport(people));
  const before = await counts();
  const res = await importFiles([file("again.zip", zip), file("detailed.csv", detailedCsv(csvRows, { currency: "USD" }))]);
  t.equal(res.body.state, "finished", res.text);
  t.match(res.body, {
    created: { clients: 0, projects: 0, tasks: 0, tags: 0, project_users: 0, users: 0, time_entries: 0 },
    matched: { clients: 2, projects: 3, tasks: 2, tags: 3, project_users: 2, users: 2 },
    skipped: { users: 1, time_entries: 4 },
  });
  t.same(await counts(), before);
  t.equal((await world.accounts("invitations").where({ email: outsider })).length, 1, "nobody is invited twice");
});

t.test("a dry run answers what it would do and writes nothing", async (t) => {
  const before = await counts();
  const rows = [...csvRows, csvRow({ email: member.email, project: "Brand New", start: "2026-02-05 10:00:00", duration: "00:20:00" })];
  const res = await importFiles([file("detailed.csv", detailedCsv(rows))], { dryRun: true });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { state: "finished", dry_run: true, created: { projects: 1, time_entries: 1 }, matched: { projects: 2 }, skipped: { time_entries: 4 } });
  t.same(await counts(), before);
});

t.test("a file in parts, the import starting with the last part", async (t) => {
  const csv = detailedCsv([csvRow({ email: owner.email, description: "In parts", start: "2026-02-06 10:00:00", duration: "00:05:00" })]);
  const first = await sys.api("POST", base, { auth: owner.auth, body: { files: [file("parts.csv", csv.subarray(0, 40))], more_files: true } });
  t.equal(first.status, 200, first.text);
  t.equal(first.body.state, "uploading");
  const last = await sys.api("POST", `${base}/${first.body.id}/files`, { auth: owner.auth, body: { file: file("parts.csv", csv.subarray(40)) } });
  t.equal(last.status, 200, last.text);
  const done = await finished(first.body.id);
  t.match(done.body, { state: "finished", files: ["parts.csv"], created: { time_entries: 1 } });
  const more = await sys.api("POST", `${base}/${first.body.id}/files`, { auth: owner.auth, body: { file: file("late.csv", csv) } });
  t.equal(more.status, 400);
  t.equal(more.body, "The import's files are complete: start another import to add files");
});

t.test("the detailed CSV's times are in the zone given", async (t) => {
  const csv = detailedCsv([csvRow({ email: owner.email, description: "Tallinn morning", start: "2026-07-01 09:00:00", duration: "00:30:00" })]);
  const res = await importFiles([file("zoned.csv", csv)], { timeZone: "Europe/Tallinn" });
  t.equal(res.body.state, "finished", res.text);
  const row = await tracking("time_entries").where({ description: "Tallinn morning" }).first();
  t.equal(new Date(row.start).toISOString(), "2026-07-01T06:00:00.000Z");
});

t.test("malformed files are refused whole, naming the file and the fault, nothing written", async (t) => {
  const good = file("good.csv", detailedCsv([csvRow({ email: owner.email, description: "Would be new", start: "2026-03-01 10:00:00", duration: "00:30:00" })]));
  const zip = await zipOf(realExport(people));
  const bomb = await zipOf({ [layout.CLIENTS_FILE]: Buffer.alloc(4 * 1024 * 1024, 0x20) });
  const cases: [string, { name: string; content: string }, RegExp][] = [
    ["not a ZIP", file("export.zip", Buffer.from("this is no archive")), /^export\.zip: not a ZIP archive/],
    ["neither ZIP nor CSV", file("notes.txt", Buffer.from("hello")), /^notes\.txt: expected a workspace export/],
    ["a ZIP bomb: far larger inflated than compressed", file("bomb.zip", bomb), /^bomb\.zip: "clients\.json": refused: 4194304 bytes inflated from \d+, far larger than the archive/],
    ["a ZIP declaring an entry over the limit", file("huge.zip", declaredSize(await zipOf({ [layout.TAGS_FILE]: "[]" }), 0xfffffff0)), /^huge\.zip: "tags\.json": refused: 4294967280 bytes inflated, over the limit/],
    ["a ZIP whose entry inflates past its declared size", file("liar.zip", declaredSize(await zipOf({ [layout.TAGS_FILE]: JSON.stringify([{ name: "a" }, { name: "b" }]) }), 4)), /^liar\.zip: "tags\.json": /],
    ["a path leaving the archive", file("trav.zip", renamed(await zipOf({ "xx/clients.json": "[]" }), "xx/clients.json", "../clients.json")), /^trav\.zip: "\.\.\/clients\.json": refused: a path that leaves the archive/],
    ["an absolute path", file("abs.zip", renamed(await zipOf({ "xclients.json": "[]" }), "xclients.json", "/clients.json")), /^abs\.zip: "\/clients\.json": refused: an absolute path/],
    ["JSON of the wrong shape", file("shape.zip", await zipOf({ ...realExport(people), [layout.PROJECTS_FILE]: JSON.stringify({ projects: [] }) })), /^shape\.zip: projects\.json: expected an array/],
    ["a name of the wrong type", file("name.zip", await zipOf({ [layout.CLIENTS_FILE]: JSON.stringify([{ id: 1, name: 42 }]) })), /^name\.zip: clients\.json: item 1: client must be a string/],
    ["broken JSON", file("broken.zip", await zipOf({ [layout.TAGS_FILE]: "[{" })), /^broken\.zip: tags\.json: invalid JSON/],
    ["a CSV without the report's columns", file("cols.csv", detailedCsv([], { headers: ["User", "Email", "Start date"] })), /^cols\.csv: line 1: missing columns "Client", "Project", "Task", "Description", "Billable", "Start time", "End date", "End time", "Duration", "Tags"/],
    ["an invalid date", file("date.csv", detailedCsv([csvRow({ email: owner.email, start: "2026-02-30 10:00:00", duration: "00:10:00" })])), /^date\.csv: line 2: invalid Start date "2026-02-30"/],
    ["an invalid date after a field of two lines", file("lines.csv", detailedCsv([csvRow({ email: owner.email, description: "two\nlines", start: "2026-02-03 10:00:00", duration: "00:10:00" }), csvRow({ email: owner.email, start: "2026-02-31 10:00:00", duration: "00:10:00" })])), /^lines\.csv: line 4: invalid Start date "2026-02-31"/],
    ["an invalid time", file("time.csv", detailedCsv([csvRow({ email: owner.email, start: "2026-02-03 25:00:00", duration: "00:10:00" })])), /^time\.csv: line 2: invalid Start time "25:00:00"/],
    ["a duration over a year", file("long.csv", detailedCsv([csvRow({ email: owner.email, start: "2026-02-03 10:00:00", duration: "9000:00:00" })])), /^long\.csv: line 2: duration over a year/],
    ["an invalid e-mail", file("mail.csv", detailedCsv([csvRow({ email: "nobody", start: "2026-02-03 10:00:00", duration: "00:10:00" })])), /^mail\.csv: line 2: invalid e-mail "nobody"/],
    ["a row of another length", file("ragged.csv", Buffer.from(`${detailedCsv([]).toString().trim()}\r\na,b\r\n`)), /^ragged\.csv: line 2: malformed CSV/],
    ["an invalid date in the CSV of a ZIP (read as it inflates)", file("csvzip.zip", await zipOf({ [layout.DETAILED_CSV_FILE]: detailedCsv([csvRow({ email: owner.email, start: "2026-02-03 10:00:00", duration: "00:10:00" }), csvRow({ email: owner.email, start: "2026-13-03 10:00:00", duration: "00:10:00" })]) })), /^csvzip\.zip: time_entries\.csv: line 3: invalid Start date "2026-13-03"/],
    ["the CSV of a ZIP inflating past its declared size", file("csvliar.zip", declaredSize(await zipOf({ [layout.DETAILED_CSV_FILE]: detailedCsv([csvRow({ email: owner.email, start: "2026-02-03 10:00:00", duration: "00:10:00" })]) }), 40)), /^csvliar\.zip: "time_entries\.csv": /],
    ["a JSON entry of the wrong shape", file("ours.zip", await zipOf({ ...realExport(people), [layout.timeEntriesFile(2026)]: JSON.stringify([{ start: "yesterday", duration: 60, user_id: 11 }]) })), /^ours\.zip: time_entries\/2026\.json: item 1: invalid start "yesterday"/],
  ];
  for (const [what, bad, message] of cases) {
    const before = await counts();
    const jobs = Number((await tracking("import_file_parts").count({ n: "*" }).first())!.n);
    const res = await sys.api("POST", base, { auth: owner.auth, body: { files: [good, file("ok.zip", zip), bad] } });
    t.equal(res.status, 400, `${what}: ${res.text}`);
    t.match(res.body, message, what);
    t.same(await counts(), before, `${what}: nothing written`);
    t.equal(Number((await tracking("import_file_parts").count({ n: "*" }).first())!.n), jobs, `${what}: the upload is dropped`);
  }
  const failed = await tracking("import_jobs").where({ state: "failed" }).orderBy("id", "desc").first();
  const status = await sys.api("GET", `${base}/${failed.id}`, { auth: owner.auth });
  t.match(status.body, { state: "failed", error: /^ours\.zip: / }, "the refused job tells why");
});

t.test("only the workspace's admins import, and only into it", async (t) => {
  const csv = [file("x.csv", detailedCsv([]))];
  const asMember = await sys.api("POST", base, { auth: member.auth, body: { files: csv } });
  t.equal(asMember.status, 403);
  const asStranger = await sys.api("POST", base, { auth: stranger.auth, body: { files: csv } });
  t.equal(asStranger.status, 403);
  const mine = await importFiles(csv);
  t.equal(mine.body.state, "finished");
  t.equal((await sys.api("GET", `${base}/${mine.body.id}`, { auth: stranger.auth })).status, 403);
  const elsewhere = await sys.api("GET", `/api/v9/workspaces/${stranger.workspaceId}/imports/${mine.body.id}`, { auth: stranger.auth });
  t.equal(elsewhere.status, 404);
  t.equal(elsewhere.body, "Import not found");
  t.equal((await sys.api("POST", `${base}/${mine.body.id}/files`, { auth: member.auth, body: { file: csv[0] } })).status, 403);
});
