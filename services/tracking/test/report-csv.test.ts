import t from "tap";
import { stringify } from "csv-stringify/sync";
import { startTestSystem } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { seededRandom } from "../../../lib/seeded-random.js";
import { csvFile, detailedReportColumns, FILE_CHUNK_BYTES, formatDuration, type Cell, type Column, type ReportTable } from "../reports/formats/index.js";
import { trackingWorld } from "./tracking-support.js";

/**
 * The CSV files are written byte for byte as the writer before them wrote them: csv-stringify's
 * stream (`escape_formulas`) fed each row's cells as text (durations `HH:MM:SS`, amounts with two
 * decimals), the detailed report's rows made from `DetailedRow` objects with each time cut from
 * an ISO text. Here that writer is the reference: csv-stringify itself on the cells as the
 * report's JSON answer names them, on values a CSV file finds hard (quotes, commas, line breaks,
 * formula characters, their full-width forms, other scripts) and times in a zone with daylight
 * saving, over more than one page of the export's reading (1,000 entries).
 */

/** The former writer: csv-stringify on the cells as text, a line end after every record. */
function reference(columns: Column[], rows: Cell[][], options: { bom?: boolean } = {}): Buffer {
  const text = (c: Column, v: Cell) => (v === null ? "" : c.kind === "duration" ? formatDuration(v as number) : c.kind === "money" ? (v as number).toFixed(2) : v);
  const records = [columns.map((c) => c.header), ...rows.map((row) => row.map((v, i) => text(columns[i], v)))];
  return Buffer.from(stringify(records, { escape_formulas: true, bom: options.bom ?? false }));
}

async function chunksOf(file: AsyncIterable<Uint8Array>): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  for await (const part of file) parts.push(Buffer.from(part));
  return parts;
}

const ODD = ['"', ",", "\n", "\r", "\r\n", "=", "+", "-", "@", "\t", "\uFF1D", "\uFF0B", "\uFF0D", "\uFF20", " ", "'", ";", "é", "漢字", "🚀", "a", "b", "0", "1", ":"];

// The whole system and a workspace for the exports below (set up before any test, so that tap waits for it).
const clock = new ManualClock(new Date("2025-12-01T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner, tracking, call } = world;
const wid = owner.workspaceId;
await world.setPlan(true);
await world.setWorkspace({ default_hourly_rate: 20, default_currency: "EUR" });

const v9 = `/api/v9/workspaces/${wid}`;
await call("PUT", "/api/v9/me", { timezone: "America/New_York" });
const client = await call("POST", `${v9}/clients`, { name: 'Acme, "the" Company' });
const names = ["=SUM(A1:A2)", "-minus, project", "@at\nnext line", "+plus", "Ünïcødé 漢字 🚀", "\uFF20wide"];
const projects: { id: number }[] = [];
for (const [i, name] of names.entries()) {
  projects.push(await call("POST", `${v9}/projects`, { name, client_id: i % 2 ? client.id : undefined, billable: true, rate: 40 + i, is_private: false }));
}
const task = await call("POST", `${v9}/projects/${projects[0].id}/tasks`, { name: 'Task "one", =two' });
const entry = (body: Record<string, unknown>) => call("POST", `${v9}/time_entries`, { created_with: "csv test", ...body });
// Around the spring change (2025-03-09 07:00 UTC: 01:59:59 EST is followed by 03:00:00 EDT) and the autumn one.
await entry({ start: "2025-03-09T06:30:00Z", duration: 3600, description: 'across "spring", =1', project_id: projects[0].id, task_id: task.id, billable: true, tags: ["red, green", '"quoted"'] });
await entry({ start: "2025-03-09T06:59:59Z", duration: 2, description: "-the second before", project_id: projects[1].id, tags: ["@tag"] });
await entry({ start: "2025-11-02T05:30:00Z", duration: 5400, description: "twice\r\n01:30", project_id: projects[2].id, billable: true });
await entry({ start: "2025-11-02T06:00:00Z", duration: 60, description: "\tleading tab", tags: ["Ünïcødé"] });
await entry({ start: "2025-07-04T03:59:00Z", duration: 120, description: "" });
// Enough entries for several pages of the export's reading, some sharing a start at the pages' edges.
const tagIds: number[] = (await tracking("tags").where({ workspace_id: wid }).orderBy("id").pluck("id")).map(Number);
const bulk = Array.from({ length: 2_150 }, (_, i) => {
  const start = new Date(Date.UTC(2025, 3, 1) + Math.floor(i / 3) * 3_600_000 + (i % 3 === 2 ? 0 : (i % 3) * 1000));
  const duration = 60 + ((i * 7919) % 20_000);
  return {
    workspace_id: wid, user_id: owner.id, project_id: i % 7 === 0 ? null : projects[i % projects.length].id, task_id: i % 13 === 0 ? task.id : null,
    description: i % 17 === 0 ? null : `${names[i % names.length]} #${i}, "n"`, billable: i % 2 === 0, start, stop: new Date(start.getTime() + duration * 1000), duration,
    running_user_id: null, tag_ids: JSON.stringify(tagIds.slice(0, i % (tagIds.length + 1))), shared_with_user_ids: "[]", created_with: "csv test",
    created_at: start, at: start, server_deleted_at: null,
  };
});
await tracking.transaction((trx) => trx.batchInsert("time_entries", bulk, 200));

// Through the whole system: the detailed report's CSV export against its JSON answer.
const base = `/reports/api/v3/workspace/${wid}`;
const RANGE = { start_date: "2025-03-01", end_date: "2025-11-30" };

interface JsonRow {
  username: string;
  email: string;
  client_name: string | null;
  project_name: string | null;
  task_name: string | null;
  description: string;
  billable: boolean;
  tag_names: string[];
  billable_amount_in_cents: number | null;
  time_entries: { seconds: number; start: string; stop: string }[];
}

/** Every row of the JSON answer, page by page as the X-Next-* headers name them. */
async function jsonRows(body: Record<string, unknown>): Promise<JsonRow[]> {
  const rows: JsonRow[] = [];
  let next: Record<string, number> = {};
  for (;;) {
    const res = await sys.api("POST", `${base}/search/time_entries`, { auth: owner.auth, body: { ...RANGE, ...body, ...next, page_size: 1000, enrich_response: true } });
    if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
    rows.push(...res.body);
    const id = res.headers.get("x-next-id");
    if (!id) return rows;
    next = { first_id: Number(id), first_row_number: Number(res.headers.get("x-next-row-number")), first_timestamp: Number(res.headers.get("x-next-timestamp")) };
  }
}

/** The CSV the former writer made of those rows: times as the JSON names them on the caller's clock. */
function expectedCsv(rows: JsonRow[], amounts: boolean): Buffer {
  const columns = detailedReportColumns("EUR").slice(0, amounts ? undefined : -1);
  const cells = rows.map((r): Cell[] => {
    const [first, last] = [r.time_entries[0], r.time_entries[r.time_entries.length - 1]];
    const row: Cell[] = [r.username, r.email, r.client_name, r.project_name, r.task_name, r.description, r.billable ? "Yes" : "No"];
    row.push(first.start.slice(0, 10), first.start.slice(11, 19), last.stop.slice(0, 10), last.stop.slice(11, 19));
    row.push(
      r.time_entries.reduce((sum, e) => sum + e.seconds, 0),
      r.tag_names.join(", "),
    );
    if (amounts) row.push(r.billable_amount_in_cents! / 100);
    return row;
  });
  return reference(columns, cells);
}

async function exported(body: Record<string, unknown>): Promise<Buffer> {
  const [user, password] = owner.auth.basic!;
  const res = await fetch(`${sys.url}${base}/search/time_entries.csv`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`, "content-type": "application/json" },
    body: JSON.stringify({ ...RANGE, ...body }),
  });
  t.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

for (const [name, body] of [
  ["entries by start, across pages and both changes of the clock", {}],
  ["newest first", { order_dir: "DESC" }],
  ["by duration (pages counted, not sought)", { order_by: "duration", order_dir: "desc" }],
  ["without amounts", { hide_amounts: true }],
  ["grouped", { grouped: true }],
  ["rounded up to 15 minutes, filtered by project", { rounding: 1, rounding_minutes: 15, project_ids: [projects[0].id, projects[2].id, null] }],
] as const) {
  t.test(`the detailed CSV export is the former writer's, byte for byte: ${name}`, async (t) => {
    const rows = await jsonRows(body);
    const csv = await exported(body);
    const expected = expectedCsv(rows, !("hide_amounts" in body));
    t.ok(rows.length > 5, `${rows.length} rows`);
    t.equal(csv.length, expected.length, "as long");
    t.ok(csv.equals(expected), "the same bytes");
    if (!csv.equals(expected)) {
      const [a, b] = [csv.toString().split("\n"), expected.toString().split("\n")];
      const at = a.findIndex((line, i) => line !== b[i]);
      t.same(a[at], b[at], `the first line that differs (${at})`);
    }
  });
}

t.test("a zone east of UTC and a refused body", async (t) => {
  await call("PUT", "/api/v9/me", { timezone: "Asia/Kolkata" });
  const rows = await jsonRows({ description: "spring" });
  t.equal(rows.length, 1);
  t.ok((await exported({ description: "spring" })).equals(expectedCsv(rows, true)));
  t.match(expectedCsv(rows, true).toString(), /2025-03-09,12:00:00,2025-03-09,13:00:00/, "06:30 UTC is 12:00 in Kolkata");
  const refused = await sys.api("POST", `${base}/search/time_entries.csv`, { auth: owner.auth, body: { ...RANGE, order_by: "nope" } });
  t.equal(refused.status, 400);
});

t.test("the writer's bytes are csv-stringify's on every kind of cell, odd texts and negative figures included", async (t) => {
  const random = seededRandom(21);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const oddText = () => Array.from({ length: Math.floor(random() * 6) }, () => pick(ODD)).join("");
  const columns: Column[] = [
    { header: "Description", kind: "text" },
    { header: "=Header, \"quoted\"", kind: "text" },
    { header: "Start date", kind: "date" },
    { header: "Start time", kind: "time" },
    { header: "Duration", kind: "duration" },
    { header: "Count", kind: "number" },
    { header: "Amount (EUR)", kind: "money", currency: "EUR" },
  ];
  const row = (i: number): Cell[] => [
    i % 9 === 0 ? null : oddText(),
    i % 5 === 0 ? "plain text" : oddText(),
    i % 7 === 0 ? null : `2025-03-${String(1 + (i % 28)).padStart(2, "0")}`,
    "02:30:00",
    i % 11 === 0 ? null : Math.round((random() - 0.2) * 400_000),
    i % 4 === 0 ? -i / 8 : i * 1.25,
    i % 6 === 0 ? null : Math.round((random() - 0.3) * 100_000) / 100,
  ];
  const rows = Array.from({ length: 4000 }, (_, i) => row(i));
  const chunks = await chunksOf(csvFile({ title: "x", subtitle: [], columns, rows }));
  t.same(Buffer.concat(chunks), reference(columns, rows), "4,000 rows of odd cells");
  t.ok(chunks.length > 1, `${chunks.length} chunks`);
  t.ok(
    chunks.slice(0, -1).every((c) => c.length >= FILE_CHUNK_BYTES),
    "every chunk but the last is a FileChunk's worth",
  );

  const fixed: Cell[][] = [
    ['say "hi",\nthen go', "=1+1", "2025-01-01", "00:00:00", 0, 0, 0],
    ["-minus", "+plus", null, null, -3600, -1.5, -12.5],
    ["@at", "\uFF1Dwide", "2025-12-31", "23:59:59", 90061, 1e21, 0.005],
    ["\ttab", "\rreturn", null, null, 1.6, Number.MAX_SAFE_INTEGER, 123456789.987],
    ["", "a,b", null, null, null, null, null],
  ];
  const table: ReportTable = { title: "x", subtitle: [], columns, rows: fixed, totals: ["Total", null, null, null, 123, 4, -1] };
  t.same(Buffer.concat(await chunksOf(csvFile(table, { bom: true, totals: true }))), reference(columns, [...fixed, table.totals!], { bom: true }), "a BOM and the totals row");
});
