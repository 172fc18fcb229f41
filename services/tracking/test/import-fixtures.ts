import yauzl from "yauzl";
import yazl from "yazl";
import * as layout from "../portability/layout.js";
import { detailedCsvHeaders } from "../reports/formats/index.js";

/**
 * Files an import reads, built here from the facts file (../shared/reference/toggl-workspace-export.md):
 * the real service's workspace ZIP (its file names from portability/layout.ts) and the detailed
 * report CSV (its header from the reports' table), with the oddities real files have.
 */

/** A ZIP of `files` (a string or bytes each), every entry stamped 1980 as the real export's may be. */
export function zipOf(files: Record<string, string | Buffer>, options: { mtime?: Date; compress?: boolean } = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(files)) {
    zip.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), name, { mtime: options.mtime ?? new Date(1980, 0, 1), compress: options.compress ?? true });
  }
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on("data", (c: Buffer) => chunks.push(c));
    zip.outputStream.on("end", () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on("error", reject);
  });
}

/** The files of a ZIP, read back with yauzl (what an export wrote). */
export async function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z!))));
  const files = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on("entry", (e: yauzl.Entry) =>
      zip.openReadStream(e, (err, stream) => {
        if (err) return reject(err);
        const parts: Buffer[] = [];
        stream!.on("data", (p: Buffer) => parts.push(p));
        stream!.on("end", () => {
          files.set(e.fileName, Buffer.concat(parts));
          zip.readEntry();
        });
      }),
    );
    zip.on("end", resolve);
    zip.on("error", reject);
    zip.readEntry();
  });
  return files;
}

/** Replaces every occurrence of an entry's name (local header and central directory) by another of the same length. */
export function renamed(zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error("names must be of one length");
  const out = Buffer.from(zip);
  const needle = Buffer.from(from);
  for (let at = out.indexOf(needle); at >= 0; at = out.indexOf(needle, at + 1)) Buffer.from(to).copy(out, at);
  return out;
}

/** Sets the uncompressed size the central directory declares for every entry (a ZIP that lies about its sizes). */
export function declaredSize(zip: Buffer, size: number): Buffer {
  const out = Buffer.from(zip);
  for (let at = out.indexOf(Buffer.from([0x50, 0x4b, 1, 2])); at >= 0; at = out.indexOf(Buffer.from([0x50, 0x4b, 1, 2]), at + 4)) out.writeUInt32LE(size, at + 24);
  // Local headers too (yauzl compares both).
  for (let at = out.indexOf(Buffer.from([0x50, 0x4b, 3, 4])); at >= 0; at = out.indexOf(Buffer.from([0x50, 0x4b, 3, 4]), at + 4)) out.writeUInt32LE(size, at + 22);
  return out;
}

export interface Person {
  uid: number;
  email: string;
  name: string;
}

/** A workspace ZIP in the real layout, from a few names: unknown extra fields and files, a `null` file, no alerts.json. */
export function realExport(people: Person[]) {
  const wid = 900001;
  const clients = [
    { archived: false, creator_id: 7, id: 501, name: "Acme", total_count: 2, wid, extra_field: "ignored" },
    { archived: true, creator_id: 7, id: 502, name: "Old Client", total_count: 2, wid },
  ];
  const project = (id: number, name: string, cid: number | null, extra: Record<string, unknown> = {}) => ({
    active: true, actual_hours: 3, actual_seconds: 10800, auto_estimates: false, billable: false, can_track_time: true, cid, client_id: cid,
    client_name: cid === 501 ? "Acme" : cid === 502 ? "Old Client" : null, color: "#0b83d9", currency: null, estimated_hours: null,
    estimated_seconds: null, fixed_fee: null, id, is_private: false, name, pinned: false, rate: null, rate_last_updated: null, recurring: false,
    recurring_parameters: null, start_date: "2024-01-01", status: "active", template: false, template_id: null, wid, workspace_id: wid, ...extra,
  });
  const projects = [project(601, "Website", 501), project(602, "Secret", null, { is_private: true, color: "#C9806B" }), project(603, "Legacy", 502, { active: false })];
  return {
    [layout.CLIENTS_FILE]: JSON.stringify(clients),
    [layout.PROJECTS_FILE]: JSON.stringify(projects),
    [layout.TAGS_FILE]: JSON.stringify([{ creator_id: 7, id: 701, name: "urgent", workspace_id: wid }, { creator_id: 7, id: 702, name: "review", workspace_id: wid }]),
    [layout.tasksFile("601")]: JSON.stringify([{ id: 801, name: "Design", active: true, project_id: 601 }, { id: 802, name: "Build", active: false, project_id: 601 }]),
    [layout.tasksFile("602")]: "[]",
    [layout.projectUsersFile("602")]: JSON.stringify(people.map((p, i) => ({ gid: null, group_id: null, id: 900 + i, labor_cost: null, labor_cost_last_updated: null, manager: i === 0, project_id: 602, rate: null, rate_last_updated: null, user_id: p.uid, workspace_id: wid }))),
    [layout.WORKSPACE_USERS_FILE]: JSON.stringify(
      people.map((p, i) => ({
        "2fa_enabled": false, active: true, admin: i === 0, email: p.email, group_ids: [], id: 1000 + i, inactive: false, is_direct: true, labor_cost: null,
        labor_cost_last_updated: null, name: p.name, organization_admin: i === 0, rate: null, rate_last_updated: null, role: "user", role_id: 1, timezone: "Europe/Tallinn",
        uid: p.uid, view_edit_billable_rates: false, view_edit_labor_costs: false, wid, working_hours_in_minutes: null, workspace_admin: i === 0,
      })),
    ),
    [layout.USER_GROUPS_FILE]: "[]",
    [layout.TRACKING_REMINDERS_FILE]: "[]",
    [layout.SCHEDULED_REPORTS_FILE]: "null",
    [layout.WORKSPACE_SETTINGS_FILE]: JSON.stringify({ hide_start_end_times: false, initial_pricing_plan: 102 }),
    [layout.auditLogFile("1")]: JSON.stringify({ client_summaries: [], events: [], group_summaries: [], project_summaries: [], task_summaries: [], user_summaries: [], workspace_summaries: [] }),
    "something_new.json": JSON.stringify({ the_future: true }),
  };
}

/** One row of the detailed CSV, by header. */
export type CsvRow = Partial<Record<string, string>>;

const quoted = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** A detailed report CSV: its header (with the amount in `currency`), rows quoted as the real export quotes them, CRLF lines; a BOM when asked. */
export function detailedCsv(rows: CsvRow[], options: { currency?: string; bom?: boolean; headers?: string[] } = {}): Buffer {
  const headers = options.headers ?? detailedCsvHeaders(options.currency ?? "USD");
  const lines = [headers.join(","), ...rows.map((r) => headers.map((h) => quoted(r[h] ?? "")).join(","))];
  return Buffer.from(`${options.bom ? "\uFEFF" : ""}${lines.join("\r\n")}\r\n`);
}

/** A CSV row of an entry: start in the file's zone, duration HH:MM:SS. */
export function csvRow(values: { email: string; user?: string; client?: string; project?: string; task?: string; description?: string; billable?: boolean; start: string; duration: string; tags?: string }): CsvRow {
  const [date, time] = values.start.split(" ");
  return {
    User: values.user ?? values.email.split("@")[0],
    Email: values.email,
    Client: values.client ?? "",
    Project: values.project ?? "",
    Task: values.task ?? "",
    Description: values.description ?? "",
    Billable: values.billable ? "Yes" : "No",
    "Start date": date,
    "Start time": time,
    "End date": date,
    "End time": time,
    Duration: values.duration,
    Tags: values.tags ?? "",
  };
}
