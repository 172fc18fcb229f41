import t, { type Test } from "tap";
import { Code, ConnectError } from "@connectrpc/connect";
import { existsSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { startSmtp } from "../../../test/support/smtp.js";
import { ManualClock } from "../../../lib/clock.js";
import { createLogger } from "../../../lib/logger.js";
import { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import type { TrackingService } from "../index.js";
import type { ServiceStorage } from "../../../lib/storage.js";
import { EXPORT_LEASE_MS, ExportWorker } from "../exports/worker.js";
import { exportFailed, exportInProgress, exportObjectsInvalid, exportNothingSelected, exportObjectUnknown, exportRequesterNotAdmin, userExportMissing, workspaceExportMissing } from "../errors.js";
import { MAX_ATTEMPTS, WORKSPACE_OBJECTS } from "../exports/rules.js";
import * as layout from "../portability/layout.js";
import { trackingWorld } from "./tracking-support.js";
import { unzip } from "./import-fixtures.js";
import { NO_ACCESS } from "../../../lib/errors.js";

/**
 * Data exports (POST/GET /api/v9/workspaces/{id}/exports, .../data/{uuid}.zip, and /api/v9/me/export):
 * requests are jobs the leased worker builds into ZIPs under EXPORT_DIR, in the real service's layout,
 * with the API's own answers in them; the requester is mailed the link; files go after the retention.
 */

const DAY = 86_400_000;
const clock = new ManualClock(new Date("2026-03-04T10:00:00Z"));
const smtp = await startSmtp(t);
const sys = await startTestSystem(t, { clock, env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, EXPORT_RETENTION_DAYS: "7" } });
const world = await trackingWorld(t, sys, clock);
const { owner, tracking, call } = world;
const wid = owner.workspaceId;
await world.setPlan(true);
const member = await world.join("member");
const stranger = await sys.signup("stranger");
const service = sys.services.get("tracking") as TrackingService;
const worker = service.exports;
// The tests run the worker's passes themselves (a request's kick would race them).
await worker.stop();
const exportDir = sys.config.exportDir;

// A workspace with every kind of object: an archived client, a private project with a project user,
// tasks, tags, a reminder, an alert, a scheduled report, entries over two years, a running and a deleted one.
const ws = `/api/v9/workspaces/${wid}`;
const acme = await call("POST", `${ws}/clients`, { name: "Acme" });
const gone = await call("POST", `${ws}/clients`, { name: "Old client" });
await call("POST", `${ws}/clients/${gone.id}/archive`);
const alpha = await call("POST", `${ws}/projects`, { name: "Alpha", client_id: acme.id });
const secret = await call("POST", `${ws}/projects`, { name: "Secret", is_private: true });
await call("POST", `${ws}/project_users`, { project_id: secret.id, user_id: member.id });
const task = await call("POST", `${ws}/projects/${alpha.id}/tasks`, { name: "Design" });
await call("POST", `${ws}/tags`, { name: "urgent" });
await call("POST", `${ws}/track_reminders`, { frequency: 1, threshold: 8, user_ids: [member.id] });
await call("POST", `${ws}/alerts`, { source_kind: "workspace", threshold_type: "hours", thresholds: [40], receiver_roles: ["admin"] });
const saved = await call("POST", `${ws}/reports/shared`, { name: "Team", public: false, fixed_daterange: true, params: { report_type: "summary", start_date: "2026-01-01" } });
await call("POST", `${ws}/scheduled_reports`, { bookmark_id: saved.id, frequency: 7, user_ids: [member.id] });
const entry = (user: TrackUser, body: Record<string, unknown>) => call("POST", `${ws}/time_entries`, { created_with: "tests", workspace_id: wid, ...body }, user);
await entry(owner, { start: "2025-12-31T23:30:00Z", duration: 3600, description: "New year's eve", project_id: alpha.id, task_id: task.id, tags: ["urgent"] });
await entry(owner, { start: "2026-02-01T09:00:00+02:00", duration: 5400, description: "Tallinn morning", project_id: secret.id, billable: true });
await entry(member, { start: "2026-02-02T09:00:00-05:00", duration: 1800, description: "New York morning", project_id: secret.id });
const deleted = await entry(member, { start: "2026-02-03T10:00:00Z", duration: 600, description: "Deleted" });
await call("DELETE", `${ws}/time_entries/${deleted.id}`, undefined, member);
const running = await entry(owner, { start: "2026-03-04T09:00:00Z", duration: -1, description: "Running" });

async function download(path: string, user: TrackUser = owner) {
  const res = await fetch(`${sys.url}${path}`, { headers: { authorization: `Basic ${Buffer.from(`${user.apiToken}:api_token`).toString("base64")}` } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}
const json = (files: Map<string, Buffer>, name: string) => JSON.parse(files.get(name)!.toString("utf8"));
/** A list file's items with the real file's names of our fields (added beside ours) checked and left out: what the API answers. */
function withoutRealNames(t: Test, items: Record<string, unknown>[], names: Record<string, string>) {
  return items.map((item) => {
    const out = { ...item };
    for (const [real, ours] of Object.entries(names)) {
      t.same(out[real], out[ours], `${real} is ${ours}`);
      delete out[real];
    }
    return out;
  });
}
const mailsTo = (user: TrackUser) => smtp.received.filter((d) => d.recipients.includes(user.email));
async function arrived(user: TrackUser, n: number) {
  for (let i = 0; i < 200 && mailsTo(user).length < n; i++) await new Promise((r) => setTimeout(r, 50));
  if (mailsTo(user).length < n) throw new Error(`${user.email}: ${mailsTo(user).length} of ${n} mails`);
  return mailsTo(user)[n - 1].mail;
}
const records = (path: string, user: TrackUser = owner) => call("GET", path, undefined, user);
const exportsOf = `${ws}/exports`;

t.test("requests refused with the reference's 400s, 403 for members who are no admins and for strangers", async (t) => {
  for (const [body, message] of [
    [[], exportNothingSelected().rawMessage],
    [["clients", "bogus"], exportObjectUnknown("bogus", WORKSPACE_OBJECTS).rawMessage],
  ] as const) {
    const res = await sys.api("POST", exportsOf, { auth: owner.auth, body });
    t.same([res.status, res.body], [400, message], JSON.stringify(body));
  }
  for (const body of [{ clients: true }, "clients", [1], null]) {
    const res = await sys.api("POST", exportsOf, { auth: owner.auth, body });
    t.same([res.status, res.body], [400, exportObjectsInvalid().rawMessage], `no list of names: ${JSON.stringify(body)}`);
  }
  const me = await sys.api("POST", "/api/v9/me/export", { auth: owner.auth, body: { profile: false, timeline: false } });
  t.same([me.status, me.body], [400, exportNothingSelected().rawMessage]);
  for (const [method, path] of [["POST", exportsOf], ["GET", exportsOf], ["GET", `${exportsOf}/data/00000000-0000-4000-8000-000000000000.zip`]] as const) {
    const asMember = await sys.api(method, path, { auth: member.auth, body: method === "POST" ? ["clients"] : undefined });
    t.same([asMember.status, asMember.body], [403, NO_ACCESS], `${method} ${path} as a member`);
    const asStranger = await sys.api(method, path, { auth: stranger.auth, body: method === "POST" ? ["clients"] : undefined });
    t.same([asStranger.status, asStranger.body], [403, NO_ACCESS], `${method} ${path} as a stranger`);
  }
  const missing = await sys.api("GET", `/api/v9/workspaces/987654321/exports`, { auth: owner.auth });
  t.same([missing.status, missing.body], [403, NO_ACCESS], "a workspace that does not exist is one the caller is no member of");
  t.same(await records(exportsOf), [], "nothing was requested");
  t.same(await records("/api/v9/me/export"), []);
});

let workspaceToken = "";
t.test("a workspace export: pending, one at a time, built by the worker, mailed, downloaded, with the API's answers in it", async (t) => {
  const token = await call("POST", exportsOf, [...WORKSPACE_OBJECTS]);
  workspaceToken = token;
  t.match(token, /^[0-9a-f-]{36}$/, "the answer is the export's token");
  t.same(await records(exportsOf), [{ token, state: "pending", error_message: "" }]);
  const again = await sys.api("POST", exportsOf, { auth: owner.auth, body: ["clients"] });
  t.same([again.status, again.body], [400, exportInProgress().rawMessage]);
  const early = await download(`${exportsOf}/data/${token}.zip`);
  t.same([early.status, JSON.parse(early.bytes.toString())], [400, workspaceExportMissing().rawMessage], "not ready yet");

  await worker.tick();
  t.same(await records(exportsOf), [{ token, state: "done", error_message: "" }]);
  t.same(readdirSync(exportDir), [`${token}.zip`], "one file, no partial one");
  const mail = await arrived(owner, 1);
  const link = `${sys.config.publicUrl}${exportsOf}/data/${token}.zip`;
  t.ok(String(mail.text).includes(link), "the mail links to the download");

  const res = await download(link.slice(sys.config.publicUrl.length));
  t.equal(res.status, 200);
  t.equal(res.headers.get("content-type"), "application/zip");
  t.match(res.headers.get("content-disposition"), layout.exportArchiveName(String(wid), token));
  const files = await unzip(res.bytes);

  t.same(json(files, layout.CLIENTS_FILE), await records(`${ws}/clients?status=both`), "clients, archived ones too");
  t.equal(json(files, layout.CLIENTS_FILE).length, 2);
  const projects = await records(`${ws}/projects?active=both`);
  t.same(json(files, layout.PROJECTS_FILE), projects, "projects, private ones too");
  t.same(json(files, layout.TAGS_FILE), await records(`${ws}/tags`));
  for (const p of projects) {
    t.same(json(files, layout.tasksFile(String(p.id))), await records(`${ws}/projects/${p.id}/tasks`), `tasks of ${p.name}`);
    const users = withoutRealNames(t, json(files, layout.projectUsersFile(String(p.id))), { labor_cost: "labour_cost" });
    t.same(users, await records(`${ws}/project_users?project_ids=${p.id}`), `project users of ${p.name}`);
  }
  t.equal(json(files, layout.tasksFile(String(alpha.id))).length, 1);
  t.same(withoutRealNames(t, json(files, layout.WORKSPACE_USERS_FILE), { uid: "user_id", wid: "workspace_id", labor_cost: "labour_cost" }), await records(`${ws}/workspace_users`));
  t.same(json(files, layout.PROJECT_GROUPS_FILE), [], "ours: the projects' groups (none here)");
  t.same(json(files, layout.USER_GROUPS_FILE), await records(`${ws}/groups`));
  t.same(json(files, layout.ALERTS_FILE), await records(`${ws}/alerts`));
  t.same(json(files, layout.TRACKING_REMINDERS_FILE), await records(`${ws}/track_reminders`));
  t.same(json(files, layout.SCHEDULED_REPORTS_FILE), await records(`${ws}/scheduled_reports`));
  t.same(json(files, layout.WORKSPACE_SETTINGS_FILE), await records(ws));

  const y2025 = json(files, layout.timeEntriesFile(2025));
  const y2026 = json(files, layout.timeEntriesFile(2026));
  t.same(y2025.map((e: { description: string }) => e.description), ["New year's eve"], "entries by the UTC year of their start");
  t.same(y2026.map((e: { description: string }) => e.description), ["Tallinn morning", "New York morning", "Running"], "in start order; the deleted one is not among them");
  t.same(json(files, layout.deletedTimeEntriesFile(2026)).map((e: { description: string; server_deleted_at: string | null }) => [e.description, Boolean(e.server_deleted_at)]), [["Deleted", true]], "it is in a file of our own");
  for (const e of [...y2025, ...y2026]) {
    const user = e.user_id === member.id ? member : owner;
    t.same(e, await records(`/api/v9/me/time_entries/${e.id}`, user), `entry ${e.id} as the API answers it`);
  }
  t.ok(y2026.find((e: { id: number }) => e.id === running.id).duration < 0, "a running entry has the API's negative duration");

  // The detailed CSV is the reports' own, year by year in the requester's zone.
  const csv = parse(files.get(layout.DETAILED_CSV_FILE)!.toString("utf8")) as string[][];
  const reportRows: string[][] = [];
  for (const year of [2025, 2026]) {
    const report = await sys.api("POST", `/reports/api/v3/workspace/${wid}/search/time_entries.csv`, { auth: owner.auth, body: { start_date: `${year}-01-01`, end_date: `${year}-12-31` } });
    const rows = parse(report.text) as string[][];
    if (reportRows.length === 0) reportRows.push(rows[0]);
    reportRows.push(...rows.slice(1));
  }
  t.same(csv, reportRows, "the detailed report's CSV, header once");
  t.same(csv[0].slice(0, 6), ["User", "Email", "Client", "Project", "Task", "Description"]);
  t.equal(csv.length, 4, "the three stopped entries (a running one has no end)");
});

t.test("another workspace's token, an unknown one, one that is no uuid: the reference's 400", async (t) => {
  const theirs = await download(`/api/v9/workspaces/${stranger.workspaceId}/exports/data/${workspaceToken}.zip`, stranger);
  t.same([theirs.status, JSON.parse(theirs.bytes.toString())], [400, workspaceExportMissing().rawMessage], "the owner's export is not in the stranger's workspace");
  const mine = await download(`/api/v9/me/export/data/${workspaceToken}.zip`);
  t.same([mine.status, JSON.parse(mine.bytes.toString())], [400, userExportMissing().rawMessage], "a workspace export is no user export");
  for (const uuid of ["00000000-0000-4000-8000-000000000000", "../../etc/passwd", "x"]) {
    const res = await download(`${exportsOf}/data/${encodeURIComponent(uuid)}.zip`);
    t.same([res.status, JSON.parse(res.bytes.toString())], [400, workspaceExportMissing().rawMessage], uuid);
  }
});

t.test("a user's own export: profile without the token, preferences, their entries only", async (t) => {
  const token = await call("POST", "/api/v9/me/export", { profile: true, timeline: true }, member);
  const again = await sys.api("POST", "/api/v9/me/export", { auth: member.auth, body: { profile: true } });
  t.same([again.status, again.body], [400, exportInProgress().rawMessage]);
  t.same(await records("/api/v9/me/export", member), [{ token, state: "pending", error_message: "" }]);
  await worker.tick();
  t.same(await records("/api/v9/me/export", member), [{ token, state: "done", error_message: "" }]);
  const mail = await arrived(member, 1);
  t.ok(String(mail.text).includes(`${sys.config.publicUrl}/api/v9/me/export/data/${token}.zip`), "the mail links to the download");
  const notTheirs = await download(`/api/v9/me/export/data/${token}.zip`, owner);
  t.equal(notTheirs.status, 400, "another user's export is not found");
  const res = await download(`/api/v9/me/export/data/${token}.zip`, member);
  t.equal(res.status, 200);
  const files = await unzip(res.bytes);
  const me = await records("/api/v9/me", member);
  t.same(json(files, layout.PROFILE_FILE), { ...me, api_token: null }, "the profile as /me answers it, without the API token");
  t.same(json(files, layout.PREFERENCES_FILE), await records("/api/v9/me/preferences", member));
  t.same(
    json(files, layout.timeEntriesFile(2026)).map((e: { description: string }) => e.description),
    ["New York morning"],
    "their own live entries",
  );
  t.notOk(files.has(layout.timeEntriesFile(2025)));
  t.ok(files.has(layout.PROFILE_FILE));
});

t.test("a job left running by a dead worker is taken again once its lease expires, into one file", async (t) => {
  const token = await call("POST", exportsOf, ["clients", "time_entries"]);
  // This worker's lease lapsed (as it must before another can take it); a worker elsewhere took
  // the job and died mid-file: its row says running, its lease holds, its partial file is left.
  clock.advance(EXPORT_LEASE_MS + 1);
  await tracking("exports").where({ uuid: token }).update({ state: "running", attempts: 1 });
  await tracking("outbox_lease").where({ name: "exports" }).delete();
  await tracking("outbox_lease").insert({ name: "exports", holder: "dead-worker", expires_at_ms: clock.now().getTime() + 60_000 });
  mkdirSync(exportDir, { recursive: true });
  writeFileSync(join(exportDir, `${token}.deadbeef.partial`), "half a zip");
  await worker.tick();
  t.same((await records(exportsOf))[0], { token, state: "running", error_message: "" }, "nothing happens while the dead worker's lease holds");
  clock.advance(60_001);
  await worker.tick();
  t.same((await records(exportsOf))[0], { token, state: "done", error_message: "" }, "taken again after the lease expired");
  t.equal((await tracking("exports").where({ uuid: token }).first()).attempts, 2);
  t.same(readdirSync(exportDir).filter((f) => f.startsWith(token)), [`${token}.zip`], "one file, the leftover replaced");
  const files = await unzip((await download(`${exportsOf}/data/${token}.zip`)).bytes);
  t.same([...files.keys()].sort(), [layout.CLIENTS_FILE, layout.DETAILED_CSV_FILE, layout.timeEntriesFile(2025), layout.timeEntriesFile(2026), layout.deletedTimeEntriesFile(2026)].sort());
});

t.test("a worker stopped mid-job leaves it pending, not counted; the next pass builds it once", async (t) => {
  const token = await call("POST", exportsOf, ["time_entries"]);
  const building = worker.tick();
  await worker.stop();
  await building;
  t.same((await records(exportsOf))[0], { token, state: "pending", error_message: "" }, "back to pending");
  t.same(readdirSync(exportDir).filter((f) => f.startsWith(token)), [], "no partial file left");
  await worker.tick();
  t.same((await records(exportsOf))[0], { token, state: "done", error_message: "" });
  t.equal((await tracking("exports").where({ uuid: token }).first()).attempts, 1, "the stopped attempt is not counted");
  t.same(readdirSync(exportDir).filter((f) => f.startsWith(token)), [`${token}.zip`]);
});

t.test("a service that is away fails no export: the job waits for the next pass", async (t) => {
  const away = new ExportWorker((worker as unknown as { storage: ServiceStorage }).storage, {
    clock, log: createLogger("silent"), directory: sys.directory, publicUrl: "", dir: exportDir, retentionDays: 7, memberScope: async () => undefined,
    identity: { getUserProfile: async () => Promise.reject(new ConnectError("accounts is away", Code.Unavailable)) } as never,
  });
  const token = await call("POST", "/api/v9/me/export", { profile: true }, owner);
  await worker.stop(); // lets its lease go
  await away.tick();
  await away.stop();
  t.same(await records("/api/v9/me/export"), [{ token, state: "pending", error_message: "" }], "pending again");
  await worker.tick();
  t.same(await records("/api/v9/me/export"), [{ token, state: "done", error_message: "" }], "built on the next pass");
  t.equal((await tracking("exports").where({ uuid: token }).first()).attempts, 2, "both attempts counted");
});

t.test("two workers: one builds, the other waits for the lease", async (t) => {
  const other = new ExportWorker(
    (worker as unknown as { storage: ServiceStorage }).storage,
    { clock, log: createLogger("silent"), directory: sys.directory, identity: sys.directory.client("accounts", IdentityService), memberScope: async () => undefined, publicUrl: "", dir: exportDir, retentionDays: 7 },
  );
  const token = await call("POST", exportsOf, ["tags"]);
  await worker.tick();
  await other.tick();
  t.same((await records(exportsOf))[0], { token, state: "done", error_message: "" }, "the lease holder built it (the other, whose scopes resolve to no one, would have failed it)");
  await other.stop();
});

t.test("a requester who is no longer an admin: the job fails with the reason; a job that kills its worker fails after its attempts", async (t) => {
  const admin = await world.join("admin", { admin: true });
  const token = await call("POST", exportsOf, ["clients"], admin);
  await world.accounts("workspace_users").where({ workspace_id: wid, user_id: admin.id }).update({ admin: false, role: "user" });
  clock.advance(5_001);
  await worker.tick();
  const row = await tracking("exports").where({ uuid: token }).first();
  t.same([row.state, row.error_message], ["failed", exportRequesterNotAdmin().rawMessage]);
  t.notOk(existsSync(join(exportDir, `${token}.zip`)));

  const doomed = await call("POST", exportsOf, ["clients"]);
  await tracking("exports").where({ uuid: doomed }).update({ state: "running", attempts: MAX_ATTEMPTS });
  await worker.tick();
  t.same((await records(exportsOf))[0], { token: doomed, state: "failed", error_message: exportFailed().rawMessage });
  const next = await sys.api("POST", exportsOf, { auth: owner.auth, body: ["clients"] });
  t.equal(next.status, 200, "a failed export lets the next one start");
  await worker.tick();
});

t.test("after the retention days the files are deleted and the records expired", async (t) => {
  const before = (await records(exportsOf)).filter((r: { state: string }) => r.state === "done").length;
  t.ok(before > 0);
  clock.advance(6 * DAY);
  await worker.tick();
  t.equal((await records(exportsOf)).filter((r: { state: string }) => r.state === "done").length, before, "kept within the retention");
  clock.advance(DAY + 60_000);
  await worker.tick();
  const now = await records(exportsOf);
  t.equal(now.filter((r: { state: string }) => r.state === "done").length, 0);
  t.ok(now.some((r: { token: string; state: string }) => r.token === workspaceToken && r.state === "expired"));
  t.same(readdirSync(exportDir), [], "every file deleted");
  const res = await download(`${exportsOf}/data/${workspaceToken}.zip`);
  t.same([res.status, JSON.parse(res.bytes.toString())], [400, workspaceExportMissing().rawMessage]);
});
