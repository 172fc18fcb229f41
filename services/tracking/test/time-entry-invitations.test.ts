import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { trackingWorld } from "./tracking-support.js";
import { invitationActionInvalid, invitationIdInvalid, sharingBodyInvalid, sharingWorkspaceInvalid } from "../errors.js";
import { NO_ACCESS } from "../../../lib/errors.js";

const clock = new ManualClock(new Date("2025-03-12T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner } = world;
const member = await world.join("member");
const other = await world.join("other");
const stranger = await sys.signup("stranger");
const ws = owner.workspaceId;
const base = `/api/v9/workspaces/${ws}/time_entry_invitations`;

async function shared(user: TrackUser, description: string, with_: number[]) {
  const res = await sys.api("POST", `/api/v9/workspaces/${ws}/time_entries`, { auth: user.auth, body: { created_with: "tests", workspace_id: ws, start: "2025-03-12T08:00:00Z", duration: 1800, description, shared_with_user_ids: with_ } });
  if (res.status !== 200) throw new Error(`entry: ${res.status} ${res.text}`);
  return res.body;
}

t.test("an invitee sees the entries shared with them, accepts one (a copy of their own) and rejects another", async (t) => {
  const a = await shared(owner, "Pairing", [member.id, other.id]);
  const b = await shared(owner, "Review", [member.id]);
  const res = await sys.api("GET", base, { auth: member.auth });
  t.equal(res.status, 200, res.text);
  t.same(res.body.map((i: { time_entry: { id: number } }) => i.time_entry.id), [a.id, b.id]);
  t.match(res.body[0], { time_entry_invitation_id: Number, workspace_id: ws, shared_by_user_id: owner.id, shared_by_user_name: "owner", time_entry: { description: "Pairing", user_id: owner.id } });
  const [first, second] = res.body.map((i: { time_entry_invitation_id: number }) => i.time_entry_invitation_id);
  await (async () => {
    const bad = await sys.api("POST", `${base}/${first}/maybe`, { auth: member.auth });
    t.equal(bad.status, 400);
    t.equal(bad.body, invitationActionInvalid().rawMessage);
  })();
  const theirs = await sys.api("POST", `${base}/${first}/accept`, { auth: other.auth });
  t.equal(theirs.status, 400, "another user's invitation");
  t.equal(theirs.body, invitationIdInvalid().rawMessage);
  const accepted = await sys.api("POST", `${base}/${first}/accept`, { auth: member.auth });
  t.equal(accepted.status, 204, accepted.text);
  t.equal((await sys.api("POST", `${base}/${second}/reject`, { auth: member.auth })).status, 204);
  t.same((await sys.api("GET", base, { auth: member.auth })).body, [], "nothing pending");
  const again = await sys.api("POST", `${base}/${first}/reject`, { auth: member.auth });
  t.equal(again.status, 400);
  const mine = (await sys.api("GET", "/api/v9/me/time_entries", { auth: member.auth })).body;
  t.match(mine, [{ description: "Pairing", user_id: member.id, duration: 1800, start: /^2025-03-12T08:00:00/ }]);
  t.equal(mine.length, 1, "the rejected one is not copied");
  t.equal((await world.events("time_entry")).filter((e) => e.action === "created").length, 3);

  const sharing = await sys.api("POST", "/api/v9/me/time_entries_shared_with", { auth: owner.auth, body: [{ time_entry_id: a.id, workspace_id: ws }, { time_entry_id: b.id, workspace_id: ws }] });
  t.equal(sharing.status, 200, sharing.text);
  t.same(sharing.body.map((s: { time_entry_id: number; user_id: number; is_accepted: boolean; user_name: string }) => [s.time_entry_id, s.user_id, s.user_name, s.is_accepted]), [
    [a.id, member.id, "member", true], [a.id, other.id, "other", false], [b.id, member.id, "member", false],
  ]);
  t.equal(sharing.body[0].time_entry_invitation_id, first);
});

t.test("sharing details: only of the caller's entries in their workspaces", async (t) => {
  const e = await shared(owner, "Mine", [member.id]);
  const path = "/api/v9/me/time_entries_shared_with";
  const notMine = await sys.api("POST", path, { auth: member.auth, body: [{ time_entry_id: e.id, workspace_id: ws }] });
  t.equal(notMine.status, 403);
  t.equal(notMine.body, NO_ACCESS);
  const foreign = await sys.api("POST", path, { auth: owner.auth, body: [{ time_entry_id: e.id, workspace_id: stranger.workspaceId }] });
  t.equal(foreign.status, 400);
  t.equal(foreign.body, sharingWorkspaceInvalid().rawMessage);
  for (const body of [{ time_entry_id: e.id }, [{ time_entry_id: "x", workspace_id: ws }], [5]]) {
    const res = await sys.api("POST", path, { auth: owner.auth, body });
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, sharingBodyInvalid().rawMessage);
  }
  t.same((await sys.api("POST", path, { auth: owner.auth, body: [] })).body, []);
});
