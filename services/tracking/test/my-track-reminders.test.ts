import t from "tap";
import { startTestSystem } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { trackingWorld } from "./tracking-support.js";

const clock = new ManualClock(new Date("2025-03-12T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner } = world;
const member = await world.join("member");
const other = await world.join("other");
const base = `/api/v9/workspaces/${owner.workspaceId}/track_reminders`;

t.test("the caller's reminders are those of their workspaces that name them", async (t) => {
  const named = await sys.api("POST", base, { auth: owner.auth, body: { frequency: 1, threshold: 8, user_ids: [member.id] } });
  t.equal(named.status, 200, named.text);
  const others = await sys.api("POST", base, { auth: owner.auth, body: { frequency: 7, threshold: 20, user_ids: [other.id] } });
  t.equal(others.status, 200, others.text);
  const mine = await sys.api("GET", "/api/v9/me/track_reminders", { auth: member.auth });
  t.equal(mine.status, 200, mine.text);
  t.same(mine.body, [named.body]);
  t.same((await sys.api("GET", "/api/v9/me/track_reminders", { auth: owner.auth })).body, []);
  const stranger = await sys.signup("stranger");
  t.same((await sys.api("GET", "/api/v9/me/track_reminders", { auth: stranger.auth })).body, []);
});
