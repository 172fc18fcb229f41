import t from "tap";
import { startTestSystem } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { trackingWorld } from "./tracking-support.js";

/**
 * GET /me/web-timer: the caller's entries of the last 9 days (newest first, the running one
 * counting up to now) with the clients, active projects they see and tags of their workspaces.
 */

const clock = new ManualClock(new Date("2026-03-10T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner } = world;
const member = await world.join("member");
const ws = owner.workspaceId;
const stranger = await sys.signup("stranger");

async function post(path: string, auth: typeof owner.auth, body: unknown) {
  const res = await sys.api("POST", path, { auth, body });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}
const client = await post(`/api/v9/workspaces/${ws}/clients`, owner.auth, { name: "Acme" });
const open = await post(`/api/v9/workspaces/${ws}/projects`, owner.auth, { name: "Open", client_id: client.id, is_private: false });
const secret = await post(`/api/v9/workspaces/${ws}/projects`, owner.auth, { name: "Secret", is_private: true });
await post(`/api/v9/workspaces/${ws}/projects`, owner.auth, { name: "Archived", active: false, is_private: false });
const tag = await post(`/api/v9/workspaces/${ws}/tags`, owner.auth, { name: "focus" });
const entry = (start: string, extra: Record<string, unknown>) => ({ workspace_id: ws, start, created_with: "test", ...extra });
const old = await post(`/api/v9/workspaces/${ws}/time_entries`, member.auth, entry("2026-02-20T09:00:00Z", { duration: 600 }));
const done = await post(`/api/v9/workspaces/${ws}/time_entries`, member.auth, entry("2026-03-09T09:00:00Z", { duration: 1800, project_id: open.id, tag_ids: [tag.id] }));
const running = await post(`/api/v9/workspaces/${ws}/time_entries`, member.auth, entry("2026-03-10T11:00:00Z", { duration: -1 }));
await post(`/api/v9/workspaces/${ws}/time_entries`, owner.auth, entry("2026-03-10T10:00:00Z", { duration: 60 }));
clock.advance(90_000);

t.test("a member's web timer: their recent entries, the workspace's clients and tags, the projects they see", async (t) => {
  const res = await sys.api("GET", "/api/v9/me/web-timer", { auth: member.auth });
  t.equal(res.status, 200, res.text);
  t.same(res.body.time_entries.map((e: { id: number }) => e.id), [running.id, done.id], "the last 9 days' own entries, newest first");
  t.notOk(res.body.time_entries.some((e: { id: number }) => e.id === old.id), "older ones are left out");
  const [now, earlier] = res.body.time_entries;
  t.match(now, { stop: null, utc_stop: null, utc_start: "2026-03-10T11:00:00+00:00", duration_in_seconds: Math.floor((clock.now().getTime() - Date.parse("2026-03-10T11:00:00Z")) / 1000), ignore_start_and_stop: false, deleted: null, planned_task_id: null });
  t.ok(now.duration < 0, "the running marker stays in duration");
  t.match(earlier, {
    project_id: open.id, tag_ids: [tag.id], tags: ["focus"], duration: 1800, duration_in_seconds: 1800,
    start: "2026-03-09T09:00:00+00:00", utc_start: "2026-03-09T09:00:00+00:00", utc_stop: "2026-03-09T09:30:00+00:00",
    workspace_id: ws, user_id: member.id, wid: ws, uid: member.id,
  });
  t.equal(earlier.updated_at, earlier.at.replace(/\.\d+Z$/, "+00:00"), "updated_at is the last change");
  t.same(res.body.clients.map((c: { name: string }) => c.name), ["Acme"]);
  t.same(res.body.projects.map((p: { name: string }) => p.name), ["Open"], "active projects the member sees: not the private or the archived one");
  t.same(res.body.tags.map((g: { name: string }) => g.name), ["focus"]);
});

t.test("an admin sees the private project; a user of no shared workspace sees none of it", async (t) => {
  const mine = await sys.api("GET", "/api/v9/me/web-timer", { auth: owner.auth });
  t.same(mine.body.projects.map((p: { id: number }) => p.id).sort(), [open.id, secret.id].sort());
  t.equal(mine.body.time_entries.length, 1, "the admin's own entries only");
  const theirs = await sys.api("GET", "/api/v9/me/web-timer", { auth: stranger.auth });
  t.equal(theirs.status, 200);
  t.same(theirs.body.time_entries, []);
  t.notOk(JSON.stringify(theirs.body).includes("Acme"), "nothing of another workspace");
  t.same((await sys.api("GET", "/api/v9/me/web-timer")).status, 403, "without credentials");
});
