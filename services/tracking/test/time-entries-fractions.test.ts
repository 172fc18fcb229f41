import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { durationMismatch, runningWithStop } from "../errors.js";

/**
 * Times with fractions of a second. Entries keep whole seconds: a time sent with fractions is
 * truncated (never moved past what the client sent), start + duration may disagree with stop by
 * less than a second (the client's own rounding), and a running entry's duration keeps the
 * reference's rounding of its start.
 */

const clock = new ManualClock(new Date("2025-03-10T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock });
const user: TrackUser = await sys.signup("fractions");
const base = `/api/v9/workspaces/${user.workspaceId}/time_entries`;

/** Fractions of a second, in microseconds: .0, .49, .5, .99. */
const FRACTIONS = [0, 490_000, 500_000, 990_000];
/** How clients turn stop - start into whole seconds. */
const ROUNDINGS: [string, (x: number) => number][] = [
  ["round", Math.round],
  ["floor", Math.floor],
  ["trunc", (x) => Math.trunc(x) + 0],
];

/** An instant at a whole second (UNIX seconds) plus microseconds. */
interface Instant {
  second: number;
  micros: number;
}
const iso = (i: Instant) => `${new Date(i.second * 1000).toISOString().slice(0, 19)}.${String(i.micros).padStart(6, "0")}Z`;
const answered = (second: number) => `${new Date(second * 1000).toISOString().slice(0, 19)}+00:00`;
const seconds = (i: Instant) => i.second + i.micros / 1e6;

/** Starts and stops at every fraction: the stop in the start's second (not before it, or truncated to it) and later ones. */
function pairs(startSecond: number, gaps = [0, 1, 300]): { start: Instant; stop: Instant }[] {
  const out = [];
  for (const sf of FRACTIONS) {
    for (const gap of gaps) {
      for (const tf of FRACTIONS) {
        const start = { second: startSecond, micros: sf };
        const stop = { second: startSecond + gap, micros: tf };
        // A stop before the start is the client's own truncation only within the start's second.
        if (gap === 0 && tf < sf && tf !== 0) continue;
        out.push({ start, stop });
      }
    }
  }
  return out;
}

let second = Date.parse("2025-03-01T00:00:00Z") / 1000;
/** A fresh whole second for each entry, an hour apart, so nothing overlaps. */
const nextSecond = () => (second += 3600);

async function send(method: string, path: string, body: unknown) {
  return sys.api(method, path, { auth: user.auth, body });
}

t.test("POST with start, stop and the client's duration keeps whole seconds, truncated, and agrees within a second", async (t) => {
  for (const [name, rounding] of ROUNDINGS) {
    for (const { start, stop } of pairs(nextSecond())) {
      const duration = rounding(seconds(stop) - seconds(start));
      const label = `${name}: ${iso(start)} .. ${iso(stop)}, duration ${duration}`;
      const res = await send("POST", base, { created_with: "tests", start: iso(start), stop: iso(stop), duration });
      t.equal(res.status, 200, `${label}: ${res.text}`);
      t.match(res.body, { start: answered(start.second), stop: answered(stop.second), duration: stop.second - start.second }, label);
    }
  }
});

t.test("POST with start and duration alone, or start and stop alone, truncates both", async (t) => {
  for (const sf of FRACTIONS) {
    const s = nextSecond();
    const start = { second: s, micros: sf };
    const byDuration = await send("POST", base, { created_with: "tests", start: iso(start), duration: 60 });
    t.match(byDuration.body, { start: answered(s), stop: answered(s + 60), duration: 60 }, iso(start));
    for (const tf of FRACTIONS) {
      const stop = { second: s + 10, micros: tf };
      const byStop = await send("POST", base, { created_with: "tests", start: iso(start), stop: iso(stop) });
      t.match(byStop.body, { start: answered(s), stop: answered(s + 10), duration: 10 }, `${iso(start)} .. ${iso(stop)}`);
    }
  }
});

t.test("a running entry keeps the reference's duration (its start rounded) while its start is truncated", async (t) => {
  for (const sf of FRACTIONS) {
    const s = nextSecond();
    const start = { second: s, micros: sf };
    const res = await send("POST", base, { created_with: "tests", start: iso(start), duration: -1 });
    t.equal(res.status, 200, res.text);
    t.match(res.body, { start: answered(s), stop: null, duration: -Math.round(seconds(start)) }, iso(start));
    const renamed = await send("PUT", `${base}/${res.body.id}`, { description: "renamed" });
    t.equal(renamed.body.duration, res.body.duration, "another change keeps the running duration");
    const moved = { second: s - 60, micros: sf };
    const restarted = await send("PUT", `${base}/${res.body.id}`, { start: iso(moved) });
    t.match(restarted.body, { start: answered(s - 60), stop: null, duration: -Math.round(seconds(moved)) }, "a new start: its own rounding");
  }
  t.equal((await send("POST", base, { created_with: "tests", start: "2024-12-13T00:18:26.8Z", duration: -1 })).body.duration, -1734049107, "the reference README's example");
});

t.test("an entry started a moment ago lies before now: a list ending now shows it", async (t) => {
  for (const sf of FRACTIONS) {
    const s = nextSecond();
    const start = { second: s, micros: sf };
    const now = { second: s, micros: sf + 5_000 };
    const res = await send("POST", base, { created_with: "tests", start: iso(start), description: `now-${sf}` });
    t.equal(res.status, 200, res.text);
    const from = { second: s - 60, micros: 0 };
    const listed = await sys.api("GET", `/api/v9/me/time_entries?start_date=${encodeURIComponent(iso(from))}&end_date=${encodeURIComponent(iso(now))}`, { auth: user.auth });
    t.equal(listed.status, 200, listed.text);
    t.same(listed.body.map((e: { description: string }) => e.description), [`now-${sf}`], iso(start));
  }
});

t.test("PUT stops a running entry with the client's stop and duration, with or without the start", async (t) => {
  for (const [name, rounding] of ROUNDINGS) {
    for (const withStart of [false, true]) {
      for (const { start, stop } of pairs(nextSecond(), [0, 300])) {
        const duration = rounding(seconds(stop) - seconds(start));
        const label = `${name}, ${withStart ? "with" : "without"} start: ${iso(start)} .. ${iso(stop)}, duration ${duration}`;
        const created = await send("POST", base, { created_with: "tests", start: iso(start) });
        t.equal(created.status, 200, created.text);
        const body = withStart ? { start: iso(start), stop: iso(stop), duration } : { stop: iso(stop), duration };
        const res = await send("PUT", `${base}/${created.body.id}`, body);
        t.equal(res.status, 200, `${label}: ${res.text}`);
        t.match(res.body, { start: answered(start.second), stop: answered(stop.second), duration: stop.second - start.second }, label);
        }
    }
  }
});

t.test("a bulk PATCH of stop and duration (and start) agrees within a second too", async (t) => {
  for (const [name, rounding] of ROUNDINGS) {
    for (const withStart of [false, true]) {
      for (const { start, stop } of pairs(nextSecond(), [0, 300])) {
        const duration = rounding(seconds(stop) - seconds(start));
        const label = `${name}, ${withStart ? "with" : "without"} start: ${iso(start)} .. ${iso(stop)}, duration ${duration}`;
        const created = await send("POST", base, { created_with: "tests", start: iso(start) });
        const operations = [
          ...(withStart ? [{ op: "replace", path: "/start", value: iso(start) }] : []),
          { op: "replace", path: "/stop", value: iso(stop) },
          { op: "replace", path: "/duration", value: duration },
        ];
        const res = await send("PATCH", `${base}/${created.body.id}`, operations);
        t.same(res.body, { success: [created.body.id], failure: [] }, `${label}: ${res.text}`);
        const got = await sys.api("GET", `/api/v9/me/time_entries/${created.body.id}`, { auth: user.auth });
        t.match(got.body, { start: answered(start.second), stop: answered(stop.second), duration: stop.second - start.second }, label);
        }
    }
  }
});

t.test("PATCH .../stop at a time with fractions stops at its whole second, never before the start", async (t) => {
  for (const sf of FRACTIONS) {
    const s = nextSecond();
    const start = { second: s, micros: sf };
    const created = await send("POST", base, { created_with: "tests", start: iso(start) });
    clock.set(new Date((s + 0.995) * 1000));
    const res = await sys.api("PATCH", `${base}/${created.body.id}/stop`, { auth: user.auth });
    t.equal(res.status, 200, res.text);
    t.match(res.body, { start: answered(s), stop: answered(s), duration: 0 }, iso(start));
  }
});

t.test("a disagreement of a second or more is still refused", async (t) => {
  const s = nextSecond();
  for (const [body, message] of [
    [{ start: iso({ second: s, micros: 0 }), stop: iso({ second: s + 60, micros: 0 }), duration: 59 }, durationMismatch().rawMessage],
    [{ start: iso({ second: s, micros: 0 }), stop: iso({ second: s + 60, micros: 0 }), duration: 61 }, durationMismatch().rawMessage],
    [{ start: iso({ second: s, micros: 500_000 }), stop: iso({ second: s + 60, micros: 0 }), duration: 58 }, durationMismatch().rawMessage],
    [{ start: iso({ second: s, micros: 500_000 }), stop: iso({ second: s + 60, micros: 0 }), duration: 61 }, durationMismatch().rawMessage],
    [{ start: iso({ second: s, micros: 0 }), stop: iso({ second: s + 60, micros: 0 }), duration: -1 }, runningWithStop().rawMessage],
    [{ start: iso({ second: s, micros: 0 }), stop: iso({ second: s, micros: 0 }), duration: -1 }, runningWithStop().rawMessage],
  ] as const) {
    const res = await send("POST", base, { created_with: "tests", ...body });
    t.same([res.status, res.body], [400, message], JSON.stringify(body));
  }
  const created = await send("POST", base, { created_with: "tests", start: iso({ second: s, micros: 500_000 }) });
  // The stored start stands for any instant of its second: 60 s after it is at most 60.999 s, over a second short of 62.
  const res = await send("PUT", `${base}/${created.body.id}`, { stop: iso({ second: s + 62, micros: 0 }), duration: 60 });
  t.same([res.status, res.body], [400, durationMismatch().rawMessage]);
});
