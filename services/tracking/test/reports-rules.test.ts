import t from "tap";
import knexFactory from "knex";
import {
  idChoice,
  instantAt,
  localDayAndTime,
  localTimeText,
  offsetSecondsAt,
  pageStart,
  reportDays,
  reportRange,
  roundedSeconds,
  rounding,
  summaryGrouping,
  timeOfDay,
  totalsResolution,
  detailedOrder,
} from "../reports/rules.js";
import { secondsSql } from "../reports/filters.js";
import { rangeParameterFormat, rangeParameterRequired, reportIdsInvalid, reportParameterUnsupported, reportRangeTooLong, reportValueNotAllowed } from "../errors.js";

// The reports' rules as plain functions: ranges and zones, rounding, lists with null, choices.

const day = (text: string) => {
  const [year, month, d] = text.split("-").map(Number);
  return { year, month, day: d };
};
const message = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as { rawMessage?: string }).rawMessage;
  }
  return undefined;
};

t.test("a range is whole days in the zone, end included; its end defaults to six days on", async (t) => {
  const tokyo = reportRange({ startDate: "2025-03-15", endDate: "2025-03-15" }, "Asia/Tokyo");
  t.same([tokyo.from.toISOString(), tokyo.to.toISOString()], ["2025-03-14T15:00:00.000Z", "2025-03-15T15:00:00.000Z"]);
  const la = reportRange({ startDate: "2025-03-09", endDate: "2025-03-09" }, "America/Los_Angeles");
  t.same([la.from.toISOString(), la.to.toISOString()], ["2025-03-09T08:00:00.000Z", "2025-03-10T07:00:00.000Z"], "a 23-hour day (DST starts)");
  t.same(reportDays({ startDate: "2025-03-10" }, false).last, day("2025-03-16"));
  t.same(reportDays({ startDate: "2024-02-29", endDate: "2025-02-28" }, false).last, day("2025-02-28"), "366 days");
  t.equal(message(() => reportDays({ startDate: "2024-02-28", endDate: "2025-02-28" }, false)), reportRangeTooLong(366).rawMessage);
  t.equal(message(() => reportDays({}, false)), rangeParameterRequired("start_date").rawMessage);
  t.equal(message(() => reportDays({ startDate: "2025-03-10", endDate: "2025-03-12" }, true)), reportParameterUnsupported("end_date").rawMessage);
  t.same(reportDays({ startDate: "2025-03-10" }, true), { first: day("2025-03-10"), last: day("2025-03-16") });
  t.same(reportDays({ startDate: "2025-03-10", endDate: "2025-03-16" }, true).last, day("2025-03-16"), "the week's own last day may be named");
});

t.test("startTime and endTime bound the first and last day, to the second", async (t) => {
  const r = reportRange({ startDate: "2025-03-10", endDate: "2025-03-11", startTime: "08:30", endTime: "17:00:59" }, "Europe/Tallinn");
  t.same([r.from.toISOString(), r.to.toISOString()], ["2025-03-10T06:30:00.000Z", "2025-03-11T15:01:00.000Z"]);
  t.equal(timeOfDay("23:59:59", "endTime"), 86399);
  for (const bad of ["24:00", "7:00", "12:60", "noon"]) t.equal(message(() => timeOfDay(bad, "startTime")), rangeParameterFormat("startTime").rawMessage, bad);
});

t.test("instants and local times of a zone", async (t) => {
  t.equal(instantAt(day("2025-10-26"), 3 * 3600, "Europe/Tallinn").toISOString(), "2025-10-26T01:00:00.000Z", "an hour the clock repeats: its later instant");
  t.equal(localTimeText(new Date("2025-03-10T09:00:00Z"), "Asia/Kolkata"), "2025-03-10T14:30:00+05:30");
  t.equal(localTimeText(new Date("2025-03-10T09:00:00.900Z"), "America/New_York"), "2025-03-10T05:00:00-04:00");
  t.equal(localTimeText(new Date("2025-03-10T09:00:00Z"), "UTC"), "2025-03-10T09:00:00+00:00");
  t.same(localDayAndTime(new Date("2025-03-10T20:00:00.900Z"), "Asia/Kolkata"), ["2025-03-11", "01:30:00"]);
});

t.test("offsets read once per zone and day are Intl's own, on the days of a change too", async (t) => {
  /** The offset as Intl tells it for the instant itself (what every answer used to ask). */
  const intlOffset = (ms: number, timeZone: string) => {
    const parts = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" }).formatToParts(new Date(ms));
    const p = Object.fromEntries(parts.map((x) => [x.type, Number(x.value)]));
    return (Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000) / 1000;
  };
  // New York and Tallinn change by an hour, Lord Howe by half an hour, Kolkata never.
  const cases = [
    ["America/New_York", "2025-03-09T07:00:00Z"],
    ["America/New_York", "2025-11-02T06:00:00Z"],
    ["Europe/Tallinn", "2025-10-26T01:00:00Z"],
    ["Australia/Lord_Howe", "2025-04-05T15:00:00Z"],
    ["Asia/Kolkata", "2025-03-10T00:00:00Z"],
  ] as const;
  for (const [zone, change] of cases) {
    const at = Date.parse(change);
    let wrong = 0;
    // Every 7.5 minutes over the two days around the change, and each side of its second.
    const instants = [at - 1000, at - 1, at, at + 999, ...Array.from({ length: 385 }, (_, i) => at - 86_400_000 + i * 450_000 + 17)];
    for (const ms of instants) if (offsetSecondsAt(new Date(ms), zone) !== intlOffset(ms, zone)) wrong++;
    t.equal(wrong, 0, `${zone} around ${change}`);
  }
  t.equal(offsetSecondsAt(new Date("2025-03-09T06:59:59Z"), "America/New_York"), -5 * 3600, "the last second before the change");
  t.equal(offsetSecondsAt(new Date("2025-03-09T07:00:00Z"), "America/New_York"), -4 * 3600, "the first second after it");
});

t.test("id lists that may hold null", async (t) => {
  t.same(idChoice([3, null, 3, 0], "project_ids"), { ids: [3], none: true }, "repeats once; an id no row has names nothing");
  t.equal(idChoice([], "project_ids"), undefined, "empty: no filter");
  t.same(idChoice([0], "project_ids"), { ids: [], none: false }, "only impossible ids: matches nothing");
  for (const bad of ["3", 1.5, true, {}]) t.equal(message(() => idChoice([bad], "tag_ids")), reportIdsInvalid("tag_ids").rawMessage);
});

t.test("rounding steps and modes", async (t) => {
  t.equal(rounding(1, 0), undefined);
  t.equal(rounding(undefined, undefined), undefined);
  t.same(rounding(undefined, 15), { step: 900, mode: 0 });
  t.equal(message(() => rounding(0, 20)), reportValueNotAllowed("rounding_minutes", ["0", "1", "5", "6", "10", "12", "15", "30", "60", "240"]).rawMessage);
  const r = (mode: -1 | 0 | 1) => ({ step: 900, mode });
  t.same([0, 1, 449, 450, 899, 900, 901].map((s) => roundedSeconds(s, r(0))), [0, 0, 0, 900, 900, 900, 900]);
  t.same([0, 1, 899, 900, 901].map((s) => roundedSeconds(s, r(1))), [0, 900, 900, 900, 1800]);
  t.same([0, 1, 899, 900, 901].map((s) => roundedSeconds(s, r(-1))), [0, 0, 0, 900, 900]);
});

t.test("the SQL rounds as the rule does", async (t) => {
  const db = knexFactory({ client: "better-sqlite3", connection: { filename: ":memory:" }, useNullAsDefault: true });
  t.teardown(() => db.destroy());
  await db.schema.createTable("te", (tb) => tb.bigInteger("duration"));
  const durations = [0, 1, 59, 60, 61, 179, 180, 181, 3599, 3600, 3601, 86399];
  await db("te").insert(durations.map((duration) => ({ duration })));
  for (const minutes of [1, 5, 6, 15, 60, 240]) {
    for (const mode of [-1, 0, 1] as const) {
      const r = { step: minutes * 60, mode };
      const rows: { s: number }[] = await db("te").select(db.raw(`${secondsSql(r)} AS s`)).orderBy("duration");
      t.same(
        rows.map((x) => Number(x.s)),
        durations.map((d) => roundedSeconds(d, r)),
        `${minutes} minutes, mode ${mode}`,
      );
    }
  }
});

t.test("choices: groupings, orders, pages, resolutions", async (t) => {
  t.same(summaryGrouping(undefined, undefined), { grouping: "projects", subGrouping: "time_entries" });
  t.same(summaryGrouping("clients", ""), { grouping: "clients", subGrouping: "time_entries" });
  t.same(summaryGrouping("users", "clients"), { grouping: "users", subGrouping: "clients" });
  t.equal(message(() => summaryGrouping("users", "users")), reportValueNotAllowed("sub_grouping", ["time_entries", "tasks", "projects", "clients"]).rawMessage);
  t.same(detailedOrder(undefined, "desc"), { by: "date", descending: true });
  const date = detailedOrder("date", "ASC");
  t.same(pageStart({}, date), { size: 50, rowNumber: 1, seek: undefined });
  t.same(pageStart({ pageSize: 5000, firstRowNumber: 51n, firstId: 7n, firstTimestamp: 1741597200n }, date), { size: 1000, rowNumber: 51, seek: { timestamp: 1741597200, id: 7 } });
  t.equal(pageStart({ firstId: 7n, firstTimestamp: 1n }, detailedOrder("duration", undefined)).seek, undefined, "seeking is by date only");
  t.equal(totalsResolution("month", "day"), "month", "granularity overrides resolution");
  t.equal(totalsResolution(undefined, "week"), "week");
  t.equal(totalsResolution(undefined, undefined), undefined);
});
