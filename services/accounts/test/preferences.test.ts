import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { DATE_FORMATS, isEmpty, PREFERENCE_FIELDS, TIMEOFDAY_FORMATS } from "../preferences/fields.js";
import { ALPHA_FEATURES } from "../preferences/features.js";
import { featureCodesInvalid, invalidJson, preferencesClientUnknown, preferencesMissing, tosAcceptNeededReadOnly } from "../errors.js";

const clock = new ManualClock(new Date("2026-03-01T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock, services: ["accounts"] });
const path = "/api/v9/me/preferences";

async function preferencesOf(user: TrackUser, url = path) {
  const res = await sys.api("GET", url, { auth: user.auth });
  t.equal(res.status, 200, `GET ${url}`);
  return res.body;
}

async function post(user: TrackUser, body: unknown) {
  return sys.api("POST", path, { auth: user.auth, body });
}

async function postOk(user: TrackUser, body: unknown) {
  const res = await post(user, body);
  t.equal(res.status, 200, res.text);
  t.equal(res.text, "", "the update answers no body");
}

/** Every field the answer holds for a user who changed nothing. */
const ALWAYS_SHOWN = Object.entries(PREFERENCE_FIELDS).filter(([, f]) => !f.omitEmpty || !isEmpty(f.default));

t.test("a new user's preferences: every field with its default, the empty ones of 'omitted when empty' left out", async (t) => {
  const user = await sys.signup("fresh");
  const p = await preferencesOf(user);
  const expected = ["alpha_features", ...ALWAYS_SHOWN.map(([name]) => name)].sort();
  t.same(Object.keys(p), expected, "names in alphabetical order");
  t.equal(p.date_format, "MM/DD/YYYY");
  t.equal(p.timeofday_format, "h:mm A");
  t.equal(p.duration_format, "improved");
  t.equal(p.pg_time_zone_name, "UTC", "the profile's time zone");
  t.equal(p.toSAcceptNeeded, false);
  t.equal(p.send_product_emails, true);
  t.equal(p.pomodoro_focus_interval_in_minutes, 25);
  t.equal(p.default_project_id, 0);
  t.equal(p.macos_show_hide_service_keyboard_shortcut, null);
  t.same(p.macos_auto_tracking_rules, {});
  t.same(p.windows_auto_tracking_rules, {});
  for (const name of ["manualMode", "seenServiceButtonModal", "theme", "timerView", "firstSeenBusinessPromo", "reportRoundingStepInMinutes"]) {
    t.notOk(name in p, `${name} is omitted while empty`);
  }
  for (const [name, field] of ALWAYS_SHOWN) {
    if (name !== "pg_time_zone_name") t.same(p[name], field.default, name);
  }
});

t.test("alpha_features lists every feature with the user's flag; description and deleted_at omitted when empty", async (t) => {
  const user = await sys.signup("features");
  const { alpha_features } = await preferencesOf(user);
  t.equal(alpha_features.length, ALPHA_FEATURES.length);
  t.same(alpha_features[0], { alpha_feature_id: 1, code: "calendar_view", description: "Calendar view of time entries", enabled: false });
  t.same(alpha_features.find((f: { code: string }) => f.code === "new_reports"), { alpha_feature_id: 4, code: "new_reports", enabled: false });
  t.same(alpha_features.find((f: { code: string }) => f.code === "legacy_editor"), {
    alpha_feature_id: 5,
    code: "legacy_editor",
    deleted_at: "2025-06-30T00:00:00Z",
    description: "The previous time entry editor",
    enabled: false,
  });

  await postOk(user, { alpha_features: [{ code: "timeline", enabled: true }, { alpha_feature_id: 3, enabled: true }] });
  let flags = Object.fromEntries((await preferencesOf(user)).alpha_features.map((f: { code: string; enabled: boolean }) => [f.code, f.enabled]));
  t.same(flags, { calendar_view: false, timeline: true, goals: true, new_reports: false, legacy_editor: false });

  await postOk(user, { alpha_features: [{ code: "timeline", enabled: false }] });
  flags = Object.fromEntries((await preferencesOf(user)).alpha_features.map((f: { code: string; enabled: boolean }) => [f.code, f.enabled]));
  t.same(flags, { calendar_view: false, timeline: false, goals: true, new_reports: false, legacy_editor: false }, "switching one leaves the others");
});

t.test("a POST changes exactly the fields it names, each of every kind", async (t) => {
  const user = await sys.signup("changer");
  const before = await preferencesOf(user);
  const changes = {
    date_format: "YYYY-MM-DD",
    timeofday_format: "H:mm",
    send_weekly_report: false,
    manualMode: true,
    theme: "dark",
    firstSeenBusinessPromo: 1700000000,
    pomodoro_interval_end_volume: 40,
    default_project_id: 9007199254740991,
    macos_stop_continue_keyboard_shortcut: { key: 37, modifiers: 1048576 },
    macos_auto_tracking_rules: { "0": { id: "r1", keyword: "invoice", project_id: 12, task_id: 0 }, "1": { keyword: "mail" } },
    windows_auto_tracking_rules: { "0": { id: "w1", enabled: true, parameters: { keyword: "x" } } },
    pg_time_zone_name: "Europe/Tallinn",
  };
  await postOk(user, changes);
  const after = await preferencesOf(user);
  t.same(after, {
    ...before,
    ...changes,
    macos_auto_tracking_rules: { "0": { id: "r1", keyword: "invoice", project_id: 12, task_id: 0 }, "1": { id: "", keyword: "mail", project_id: 0, task_id: 0 } },
  });
  t.same(Object.keys(after), [...Object.keys(after)].sort(), "still in alphabetical order");
});

t.test("null puts a field back to its default; an emptied 'omitted when empty' field disappears", async (t) => {
  const user = await sys.signup("resetter");
  await postOk(user, { date_format: "DD.MM.YYYY", manualMode: true, theme: "dark", macos_stop_continue_keyboard_shortcut: { key: 1, modifiers: 2 } });
  await postOk(user, { date_format: null, manualMode: false, theme: "", macos_stop_continue_keyboard_shortcut: null });
  const p = await preferencesOf(user);
  t.equal(p.date_format, "MM/DD/YYYY");
  t.notOk("manualMode" in p);
  t.notOk("theme" in p);
  t.equal(p.macos_stop_continue_keyboard_shortcut, null);
});

t.test("every allowed date and time-of-day format is taken", async (t) => {
  const user = await sys.signup("formats");
  for (const date_format of DATE_FORMATS) {
    await postOk(user, { date_format });
    t.equal((await preferencesOf(user)).date_format, date_format);
  }
  for (const timeofday_format of TIMEOFDAY_FORMATS) {
    await postOk(user, { timeofday_format });
    t.equal((await preferencesOf(user)).timeofday_format, timeofday_format);
  }
});

t.test("the errors of the specification, each changing nothing", async (t) => {
  const user = await sys.signup("errors");
  await postOk(user, { date_format: "DD/MM/YYYY" });
  const before = await preferencesOf(user);
  for (const [body, message] of [
    [{ toSAcceptNeeded: false }, tosAcceptNeededReadOnly().rawMessage],
    [{ date_format: "YYYY-MM-DD", toSAcceptNeeded: true }, tosAcceptNeededReadOnly().rawMessage],
    [{ alpha_features: [{ code: "no_such_feature", enabled: true }] }, featureCodesInvalid().rawMessage],
    [{ alpha_features: [{ code: "timeline", enabled: true }, { alpha_feature_id: 999, enabled: true }] }, featureCodesInvalid().rawMessage],
    [{ alpha_features: [{ code: "legacy_editor", enabled: true }] }, featureCodesInvalid().rawMessage],
    [{ alpha_features: [{ enabled: true }] }, featureCodesInvalid().rawMessage],
    [{}, preferencesMissing().rawMessage],
    [{ not_a_preference: 1 }, preferencesMissing().rawMessage],
    [{ date_format: "YYYY/MM/DD" }, "Value in date_format is invalid"],
    [{ date_format: "" }, "Value in date_format is invalid"],
    [{ timeofday_format: "hh:mm:ss" }, "Value in timeofday_format is invalid"],
    [{ send_weekly_report: false, timeofday_format: "HH" }, "Value in timeofday_format is invalid"],
  ] as const) {
    const res = await post(user, body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message, JSON.stringify(body));
  }
  const noBody = await sys.api("POST", path, { auth: user.auth });
  t.equal(noBody.status, 400);
  t.equal(noBody.body, preferencesMissing().rawMessage);
  t.same(await preferencesOf(user), before);
});

t.test("wrong types, huge values and nested junk are 400s naming the field, changing nothing", async (t) => {
  const user = await sys.signup("junk");
  const before = await preferencesOf(user);
  for (const [body, message] of [
    [{ send_weekly_report: "yes" }, "Invalid value for send_weekly_report: expected boolean"],
    [{ manualMode: 1 }, "Invalid value for manualMode: expected boolean"],
    [{ theme: 5 }, "Invalid value for theme: expected string"],
    [{ theme: "x".repeat(256) }, "Value in theme is longer than 255 characters"],
    [{ pomodoro_focus_interval_in_minutes: 2.5 }, "Invalid value for pomodoro_focus_interval_in_minutes: expected integer"],
    [{ pomodoro_focus_interval_in_minutes: "25" }, "Invalid value for pomodoro_focus_interval_in_minutes: expected integer"],
    [{ pomodoro_focus_interval_in_minutes: 2147483648 }, "Value in pomodoro_focus_interval_in_minutes is out of range (0 to 2147483647)"],
    [{ pomodoro_focus_interval_in_minutes: -1 }, "Value in pomodoro_focus_interval_in_minutes is out of range (0 to 2147483647)"],
    [{ pomodoro_interval_end_volume: 101 }, "Value in pomodoro_interval_end_volume is out of range (0 to 100)"],
    [{ calendar_visible_hours_end: 25 }, "Value in calendar_visible_hours_end is out of range (0 to 24)"],
    [{ default_project_id: 9007199254740992 }, "Value in default_project_id is out of range (0 to 9007199254740991)"],
    [{ default_project_id: 1e300 }, "Value in default_project_id is out of range (0 to 9007199254740991)"],
    [{ macos_stop_continue_keyboard_shortcut: [1, 2] }, "Invalid value for macos_stop_continue_keyboard_shortcut: expected object"],
    [{ macos_stop_continue_keyboard_shortcut: { key: 1 } }, "Missing macos_stop_continue_keyboard_shortcut.modifiers"],
    [{ macos_stop_continue_keyboard_shortcut: { key: 1, modifiers: 2, extra: {} } }, "Unknown field macos_stop_continue_keyboard_shortcut.extra"],
    [{ windows_stop_start_keyboard_shortcut: { key: "a", modifiers: 2 } }, "Invalid value for windows_stop_start_keyboard_shortcut.key: expected integer"],
    [{ macos_auto_tracking_rules: [] }, "Invalid value for macos_auto_tracking_rules: expected object from index to rule"],
    [{ macos_auto_tracking_rules: { first: {} } }, 'Invalid value for macos_auto_tracking_rules: keys are indexes (0, 1, ...), got "first"'],
    [{ macos_auto_tracking_rules: { "0": { keyword: { deep: [1, 2, 3] } } } }, "Invalid value for macos_auto_tracking_rules.0.keyword: expected string"],
    [{ macos_auto_tracking_rules: { "0": { keyword: "a", color: "red" } } }, "Unknown field macos_auto_tracking_rules.0.color"],
    [{ windows_auto_tracking_rules: { "0": "text" } }, "Invalid value for windows_auto_tracking_rules.0: expected object"],
    [{ macos_auto_tracking_rules: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [String(i), {}])) }, "macos_auto_tracking_rules holds at most 100 rules"],
    [{ alpha_features: { code: "timeline" } }, "Invalid value for alpha_features: expected array"],
    [{ alpha_features: ["timeline"] }, "Invalid value for alpha_features[0]: expected object"],
    [{ alpha_features: [{ code: "timeline", enabled: "yes" }] }, "Invalid value for alpha_features[0].enabled: expected boolean"],
    [{ alpha_features: [{ code: 7, enabled: true }] }, "Invalid value for alpha_features[0].code: expected string"],
    [[{ date_format: "YYYY-MM-DD" }], invalidJson().rawMessage],
    ["date_format", invalidJson().rawMessage],
  ] as const) {
    const res = await post(user, body);
    t.equal(res.status, 400, JSON.stringify(body).slice(0, 100));
    t.equal(res.body, message, JSON.stringify(body).slice(0, 100));
  }
  let deep: unknown = 1;
  for (let i = 0; i < 40; i++) deep = { "0": deep };
  const tooDeep = await post(user, { windows_auto_tracking_rules: { "0": deep } });
  t.equal(tooDeep.status, 400);
  t.match(tooDeep.body, /nested deeper than/);
  const huge = await post(user, { windows_auto_tracking_rules: { "0": { note: "x".repeat(300_000) } } });
  t.equal(huge.status, 400);
  t.match(huge.body, /preferences/);
  const malformed = await sys.api("POST", path, { auth: user.auth, rawBody: "{not json", headers: { "content-type": "application/json" } });
  t.equal(malformed.status, 400);
  t.same(await preferencesOf(user), before);
});

t.test("names that are no preference field are ignored beside real ones", async (t) => {
  const user = await sys.signup("unknown");
  await postOk(user, { beginningOfWeek: 3, send_weekly_report: false });
  const p = await preferencesOf(user);
  t.notOk("beginningOfWeek" in p);
  t.equal(p.send_weekly_report, false);
});

t.test("the time zone defaults to the profile's until the user sets one", async (t) => {
  const user = await sys.signup("zone");
  const put = await sys.api("PUT", "/api/v9/me", { auth: user.auth, body: { timezone: "America/New_York" } });
  t.equal(put.status, 200, put.text);
  t.equal((await preferencesOf(user)).pg_time_zone_name, "America/New_York");
  await postOk(user, { pg_time_zone_name: "Asia/Tokyo" });
  t.equal((await preferencesOf(user)).pg_time_zone_name, "Asia/Tokyo");
});

t.test("GET /me/preferences/{client}: known clients, since, unknown client", async (t) => {
  const user = await sys.signup("client");
  const full = await preferencesOf(user);
  for (const client of ["web", "desktop", "mobile", "extension"]) {
    t.same(await preferencesOf(user, `${path}/${client}`), full, client);
  }
  const now = Math.floor(clock.now().getTime() / 1000);
  t.same(await preferencesOf(user, `${path}/web?since=${now}`), {}, "nothing changed yet");
  t.same(await preferencesOf(user, `${path}/web?since=0`), full, "since=0: always");

  clock.advance(60_000);
  const changedAt = Math.floor(clock.now().getTime() / 1000);
  await postOk(user, { theme: "dark" });
  const changed = await preferencesOf(user, `${path}/desktop?since=${changedAt}`);
  t.equal(changed.theme, "dark", "changed at or after since: the whole object");
  t.same(changed, await preferencesOf(user));
  t.same(await preferencesOf(user, `${path}/desktop?since=${changedAt + 1}`), {}, "not changed since");

  for (const client of ["phone", "WEB", "x".repeat(51)]) {
    const res = await sys.api("GET", `${path}/${client}`, { auth: user.auth });
    t.equal(res.status, 400, client.slice(0, 10));
  }
  const unknown = await sys.api("GET", `${path}/phone`, { auth: user.auth });
  t.equal(unknown.body, preferencesClientUnknown().rawMessage);
  for (const since of ["-1", "abc", "1.5"]) {
    const res = await sys.api("GET", `${path}/web?since=${since}`, { auth: user.auth });
    t.equal(res.status, 400, since);
  }
});

t.test("each user sees and changes only their own preferences", async (t) => {
  const alice = await sys.signup("alice");
  const bob = await sys.signup("bob");
  await postOk(alice, { theme: "dark", date_format: "DD-MM-YYYY", alpha_features: [{ code: "goals", enabled: true }] });
  const bobs = await preferencesOf(bob);
  t.notOk("theme" in bobs);
  t.equal(bobs.date_format, "MM/DD/YYYY");
  t.notOk(bobs.alpha_features.find((f: { code: string }) => f.code === "goals").enabled);
  await postOk(bob, { date_format: "YYYY-MM-DD" });
  t.equal((await preferencesOf(alice)).date_format, "DD-MM-YYYY");
});

t.test("concurrent changes of different fields all stay", async (t) => {
  const user = await sys.signup("concurrent");
  const changes = [{ theme: "dark" }, { date_format: "DD.MM.YYYY" }, { manualMode: true }, { pomodoro_enabled: true }, { alpha_features: [{ code: "goals", enabled: true }] }];
  const answers = await Promise.all(changes.map((body) => post(user, body)));
  t.same(answers.map((a) => a.status), changes.map(() => 200));
  const p = await preferencesOf(user);
  t.match(p, { theme: "dark", date_format: "DD.MM.YYYY", manualMode: true, pomodoro_enabled: true });
  t.ok(p.alpha_features.find((f: { code: string }) => f.code === "goals").enabled);
});

t.test("without credentials: 403", async (t) => {
  for (const [method, url] of [
    ["GET", path],
    ["POST", path],
    ["GET", `${path}/web`],
  ] as const) {
    const res = await sys.api(method, url, { body: method === "POST" ? { theme: "dark" } : undefined });
    t.equal(res.status, 403, `${method} ${url}`);
  }
});
