import t from "tap";
import { create, toBinary } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { startTestSystem } from "../../../test/support/harness.js";
import { startSmtp } from "../../../test/support/smtp.js";
import { ManualClock } from "../../../lib/clock.js";
import { WorkspaceUserSchema } from "../../../gen/accounts/v1/organizations_pb.js";
import { EventSchema } from "../../../gen/events/v1/event_pb.js";
import type { TrackingService } from "../index.js";
import { trackingWorld } from "./tracking-support.js";
import { csvRow, detailedCsv } from "./import-fixtures.js";

/**
 * The entries of someone without an account are kept as the importing admin's until that person
 * joins: accepting the invitation the import sent makes them theirs (the accounts service's
 * workspace_user event, consumed by tracking), once, whatever the number of deliveries.
 */

const clock = new ManualClock(new Date("2026-03-04T10:00:00Z"));
const smtp = await startSmtp(t);
const sys = await startTestSystem(t, { clock, env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}` } });
const world = await trackingWorld(t, sys, clock);
const { owner, tracking } = world;
const wid = owner.workspaceId;
const newcomer = `newcomer.${Date.now()}@example.org`;

/** The code of the invitation mailed to `to` (waiting for it). */
async function invitationCode(to: string): Promise<string> {
  const mails = () => smtp.received.filter((d) => d.recipients.includes(to) && /invited you/.test(d.mail.subject ?? ""));
  for (const deadline = Date.now() + 10_000; mails().length === 0; await new Promise((r) => setTimeout(r, 25))) if (Date.now() > deadline) throw new Error(`no invitation mail to ${to}`);
  const m = /\/invitations\/(\S+)/.exec(mails()[0].mail.text ?? "");
  if (!m) throw new Error("no invitation link");
  return m[1];
}

async function importCsv(rows: ReturnType<typeof csvRow>[]) {
  const body = { files: [{ name: "detailed.csv", content: detailedCsv(rows).toString("base64") }], time_zone: "UTC" };
  const started = await sys.api("POST", `/api/v9/workspaces/${wid}/imports`, { auth: owner.auth, body });
  if (started.status !== 200) throw new Error(started.text);
  for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    const res = await sys.api("GET", `/api/v9/workspaces/${wid}/imports/${started.body.id}`, { auth: owner.auth });
    if (["finished", "failed"].includes(res.body.state)) return res.body;
  }
  throw new Error("import did not finish");
}

const entriesOf = async (auth: typeof owner.auth) => (await sys.api("GET", "/api/v9/me/time_entries?start_date=2026-02-01&end_date=2026-03-31", { auth })).body as { description: string; user_id: number; duration: number }[];

t.test("a newcomer's imported entries become theirs when they accept the invitation", async (t) => {
  const imported = await importCsv([
    csvRow({ email: newcomer, project: "Website", description: "Contract work", start: "2026-02-03 08:00:00", duration: "02:00:00", tags: "outside" }),
    csvRow({ email: newcomer, description: "More contract work", start: "2026-02-04 08:00:00", duration: "01:00:00" }),
    csvRow({ email: owner.email, description: "The admin's own", start: "2026-02-05 08:00:00", duration: "00:30:00" }),
  ]);
  t.equal(imported.state, "finished", JSON.stringify(imported));
  t.same(imported.invited, [newcomer]);
  t.same((await entriesOf(owner.auth)).map((e) => e.description).sort(), ["Contract work", "More contract work", "The admin's own"], "kept as the importer's meanwhile");

  const code = await invitationCode(newcomer);
  const signup = await sys.api("POST", "/api/signup", { body: { email: newcomer, password: "newcomer password", timezone: "UTC" } });
  t.equal(signup.status, 200, signup.text);
  const auth = { basic: [signup.body.api_token, "api_token"] as [string, string] };
  t.same(await entriesOf(auth), [], "signing up alone moves nothing: they are no member yet");
  const accepted = await sys.api("POST", `/api/v9/organizations/invitations/${code}/accept`, { auth });
  t.equal(accepted.status, 200, accepted.text);

  let theirs: Awaited<ReturnType<typeof entriesOf>> = [];
  for (const end = Date.now() + 10_000; theirs.length < 2 && Date.now() < end; await new Promise((r) => setTimeout(r, 25))) theirs = await entriesOf(auth);
  t.same(theirs.map((e) => [e.description, e.user_id]).sort(), [["Contract work", signup.body.id], ["More contract work", signup.body.id]], "listed as the new member's own");
  t.same((await entriesOf(owner.auth)).map((e) => e.description), ["The admin's own"], "no longer the importer's");
  t.equal(Number((await tracking("import_entry_origins").count({ n: "*" }).first())!.n), 0, "their addresses are dropped");

  // The same files again: the entries are the member's now, matched, nothing created.
  const again = await importCsv([csvRow({ email: newcomer, project: "Website", description: "Contract work", start: "2026-02-03 08:00:00", duration: "02:00:00", tags: "outside" })]);
  t.match(again, { created: { time_entries: 0, users: 0 }, skipped: { time_entries: 1 } });
});

t.test("a redelivered join moves nothing twice, and other events move nothing", async (t) => {
  const { adoptions } = sys.services.get("tracking") as TrackingService;
  const other = `later.${Date.now()}@example.org`;
  await importCsv([csvRow({ email: other, description: "Kept for later", start: "2026-02-06 08:00:00", duration: "00:20:00" })]);
  const later = await sys.signup("later");
  const event = (entity: string, member: Partial<{ active: boolean; inactive: boolean }>, service = "accounts") =>
    toBinary(
      EventSchema,
      create(EventSchema, {
        id: `e${Math.random()}`, service, entity, action: "created", workspaceId: String(wid),
        object: anyPack(WorkspaceUserSchema, create(WorkspaceUserSchema, { active: true, email: other.toUpperCase(), userId: BigInt(later.id), workspaceId: BigInt(wid), ...member })),
      }),
    );
  const kept = async () => Number((await tracking("time_entries").where({ workspace_id: wid, user_id: owner.id, description: "Kept for later" }).count({ n: "*" }).first())!.n);
  await adoptions.receive([
    { subject: "x", id: "1", data: event("workspace_user", { active: false }) },
    { subject: "x", id: "2", data: event("workspace_user", { inactive: true }) },
    { subject: "x", id: "3", data: event("project_user", {}) },
    { subject: "x", id: "4", data: event("workspace_user", {}, "tracking") },
    { subject: "x", id: "5", data: new Uint8Array([1, 2, 3]) },
  ]);
  t.equal(await kept(), 1, "an invitee not yet joined, a deactivated member, other entities and services, and garbage move nothing");
  const joined = event("workspace_user", {});
  // The subject is read first: one that names another entity is passed over without decoding.
  await adoptions.receive([{ subject: `accounts.${wid}.project_user.created`, id: "6", data: joined }]);
  t.equal(await kept(), 1, "an event whose subject is no join is not read");
  await adoptions.receive([{ subject: `accounts.${wid}.workspace_user.created`, id: "6", data: joined }]);
  await adoptions.receive([{ subject: "x", id: "6", data: joined }]);
  t.equal(await kept(), 0);
  const moved = await tracking("time_entries").where({ workspace_id: wid, description: "Kept for later" }).select("user_id");
  t.same(moved.map((r: { user_id: number }) => Number(r.user_id)), [later.id], "moved once, to the member the address belongs to (ignoring case)");
});
