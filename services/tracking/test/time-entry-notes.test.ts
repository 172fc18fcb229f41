import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { trackingWorld } from "./tracking-support.js";
import { resourceNotFound } from "../errors.js";

const clock = new ManualClock(new Date("2025-03-12T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner } = world;
const member = await world.join("member");
const ws = owner.workspaceId;

async function entry(user: TrackUser, description = "work") {
  const res = await sys.api("POST", `/api/v9/workspaces/${ws}/time_entries`, { auth: user.auth, body: { created_with: "tests", workspace_id: ws, start: "2025-03-12T08:00:00Z", duration: 60, description } });
  if (res.status !== 200) throw new Error(`entry: ${res.status} ${res.text}`);
  return res.body;
}
const notesOf = (id: number | string) => `/api/v9/me/time_entries/${id}/notes`;

t.test("notes: empty at first, set with PUT, read back, removed with DELETE", async (t) => {
  const e = await entry(owner);
  t.same((await sys.api("GET", notesOf(e.id), { auth: owner.auth })).body, { id: e.id, notes: "" });
  const put = await sys.api("PUT", notesOf(e.id), { auth: owner.auth, body: { notes: "Longer text\nwith lines" } });
  t.equal(put.status, 200, put.text);
  t.same(put.body, { id: e.id, notes: "Longer text\nwith lines" });
  t.same((await sys.api("PUT", notesOf(e.id), { auth: owner.auth, body: { notes: "Second" } })).body, { id: e.id, notes: "Second" });
  t.same((await sys.api("GET", notesOf(e.id), { auth: owner.auth })).body, { id: e.id, notes: "Second" });
  const del = await sys.api("DELETE", notesOf(e.id), { auth: owner.auth });
  t.equal(del.status, 200);
  t.same((await sys.api("GET", notesOf(e.id), { auth: owner.auth })).body, { id: e.id, notes: "" });
});

t.test("another user's entry, a deleted one, or none is 404; bad input is 400", async (t) => {
  const theirs = await entry(member);
  const gone = await entry(owner);
  t.equal((await sys.api("DELETE", `/api/v9/workspaces/${ws}/time_entries/${gone.id}`, { auth: owner.auth })).status, 200);
  for (const id of [theirs.id, gone.id, 987654321]) {
    for (const method of ["GET", "PUT", "DELETE"]) {
      const res = await sys.api(method, notesOf(id), { auth: owner.auth, body: method === "PUT" ? { notes: "x" } : undefined });
      t.equal(res.status, 404, `${method} ${id}`);
      t.equal(res.body, resourceNotFound().rawMessage);
    }
  }
  t.same((await sys.api("GET", notesOf(theirs.id), { auth: member.auth })).body, { id: theirs.id, notes: "" }, "its owner reads it");
  const mine = await entry(owner);
  const long = await sys.api("PUT", notesOf(mine.id), { auth: owner.auth, body: { notes: "x".repeat(10001) } });
  t.equal(long.status, 400);
  t.equal(long.body, "notes must be at most 10000 characters");
  t.equal((await sys.api("PUT", notesOf(mine.id), { auth: owner.auth, body: { notes: 5 } })).status, 400);
});

t.test("POST /me/time_entries/notes answers the notes of the caller's entries among the ids", async (t) => {
  const a = await entry(owner);
  const b = await entry(owner);
  const theirs = await entry(member);
  await sys.api("PUT", notesOf(a.id), { auth: owner.auth, body: { notes: "A" } });
  const res = await sys.api("POST", "/api/v9/me/time_entries/notes", { auth: owner.auth, body: { time_entry_ids: [b.id, a.id, theirs.id, 99999999] } });
  t.equal(res.status, 200, res.text);
  t.same(res.body, [{ id: a.id, notes: "A" }, { id: b.id, notes: "" }]);
  t.same((await sys.api("POST", "/api/v9/me/time_entries/notes", { auth: owner.auth, body: {} })).body, []);
  t.equal((await sys.api("POST", "/api/v9/me/time_entries/notes", { auth: owner.auth, body: { time_entry_ids: "1" } })).status, 400);
});

t.test("the checklist says whether the caller created entries and how many", async (t) => {
  const fresh = await world.join("fresh");
  t.same((await sys.api("GET", "/api/v9/me/time_entries/checklist", { auth: fresh.auth })).body, [{ time_entries_count_check: false, time_entries_created_check: false }]);
  await entry(fresh);
  t.same((await sys.api("GET", "/api/v9/me/time_entries/checklist", { auth: fresh.auth })).body, [{ time_entries_count_check: false, time_entries_created_check: true }]);
  for (let i = 0; i < 9; i++) await entry(fresh);
  t.same((await sys.api("GET", "/api/v9/me/time_entries/checklist", { auth: fresh.auth })).body, [{ time_entries_count_check: true, time_entries_created_check: true }]);
});
