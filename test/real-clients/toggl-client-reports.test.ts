import t from "tap";
import togglClient, { type TogglClient } from "toggl-client";
import { startTestSystem, type TestSystem } from "../support/harness.js";

// toggl-client 3.5.0's report methods (reports.summary, details, weekly), as published, against this
// system. Each report request names its own prefixUrl, https://api.track.toggl.com/reports/api/v3, so
// besides the v9 prefix (as in toggl-client.test.ts) the redirect rewrites that host to the gateway's
// in an `init` hook of got, the library's HTTP client: paths, bodies (with the library's user_agent
// and workspace_id fields) and parsing stay the library's.

const REAL = "https://api.track.toggl.com";
const sys: TestSystem = await startTestSystem(t);

function toggl(apiToken: string): TogglClient {
  const client = togglClient({ apiToken });
  client.httpClient = client.httpClient.extend({
    prefixUrl: `${sys.url}/api/v9`,
    hooks: {
      init: [
        (init) => {
          if (typeof init.prefixUrl === "string" && init.prefixUrl.startsWith(REAL)) init.prefixUrl = sys.url + init.prefixUrl.slice(REAL.length);
        },
      ],
    },
  });
  return client;
}

const user = await sys.signup("rita");
const client = toggl(user.apiToken);
const wid = user.workspaceId;
const project = await client.projects.create(wid, { name: "Reports", active: true });
for (const [start, duration, description] of [
  ["2025-03-10T09:00:00Z", 3600, "Build"],
  ["2025-03-11T09:00:00Z", 1800, "Build"],
  ["2025-03-12T09:00:00Z", 900, "Review"],
] as const) {
  await client.timeEntries.create({ workspace_id: wid, start, duration, description, project_id: project.id });
}

t.test("reports.summary answers the summary report's groups", async (t) => {
  const report = await client.reports.summary(wid, { start_date: "2025-03-10", end_date: "2025-03-16" });
  t.equal(report.groups.length, 1, "one project");
  t.equal(report.groups[0].id, project.id);
  t.same(
    report.groups[0].sub_groups.map((s: { title: string; seconds: number }) => [s.title, s.seconds]),
    [["Build", 5400], ["Review", 900]],
    "sub-grouped by description",
  );
});

t.test("reports.details answers the detailed report's rows", async (t) => {
  const rows = await client.reports.details(wid, { start_date: "2025-03-10", end_date: "2025-03-16" });
  const list = Object.values(rows).filter((r): r is { description: string; time_entries: unknown[] } => typeof r === "object" && r !== null && "time_entries" in r);
  t.same(list.map((r) => r.description).sort(), ["Build", "Build", "Review"], "one row per entry");
  await t.rejects(client.reports.details(wid, { end_date: "2025-03-16" } as never), /must include start_date/, "the library's own check");
});

t.test("reports.weekly answers the weekly rows", async (t) => {
  const rows = await client.reports.weekly(wid, { start_date: "2025-03-10" });
  const list = Object.values(rows).filter((r): r is { project_id: number; seconds: number[] } => typeof r === "object" && r !== null && "seconds" in r);
  t.equal(list.length, 1, "one user and project");
  t.same(list[0].seconds, [3600, 1800, 900, 0, 0, 0, 0], "day by day from Monday");
});
