import t from "tap";
import knex from "knex";
import { getOption, hasOption, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { limits as limitsOption } from "../gen/gateway/v1/annotations_pb.js";
import { PROTO_FILES } from "../lib/contracts.js";
import { migrate, type Migration } from "../lib/db.js";
import type { ServiceName } from "../lib/config.js";
import { migrations as hiring } from "../services/hiring/migrations.js";
import { migrations as accounts } from "../services/accounts/migrations.js";
import { migrations as tracking } from "../services/tracking/migrations.js";
import { migrations as notifier } from "../services/notifier/migrations.js";

/**
 * One limit per field: a request field that a service stores declares, as its proto limit, no more
 * than the width of the column it lands in, so the field-limits interceptor's 400 (with the API's
 * own message where the proto declares one) comes before the database could refuse or cut the
 * value, on SQLite and MySQL alike. Rules read the same declaration (lib/field-limits.ts
 * `declaredMaxLength`) instead of a number of their own.
 *
 * Which column a field lands in is read from the names: a writing RPC's request (or a message
 * inside it, e.g. `ProjectInput`) names its entity (`CreateClientRequest` -> `clients`), and the
 * field is the column of that name in that table of the same service.
 */

const MIGRATIONS: Record<ServiceName, Migration[]> = { hiring, accounts, tracking, notifier };

/** Requests whose entity's table is not the plural of the name. */
const TABLE_OF: Record<string, string> = { signup: "users", me: "users", organization_user: "organization_users", workspace_subscription: "subscriptions" };

/**
 * Fields whose rules admit one form only, never longer than the column (a code, a date, a color, a
 * name from a fixed list): their declared limit bounds the input, the rule's message answers a
 * value of another form, whatever its length.
 */
const FORM_CHECKED: Record<string, string> = {
  "accounts.v1.CreateWorkspaceRequest.default_currency": "three letters (workspaces/rules.ts)",
  "accounts.v1.UpdateWorkspaceRequest.default_currency": "three letters (workspaces/rules.ts)",
  "accounts.v1.UpdateOrganizationUserRequest.role": "one of the organization roles (organizations/rules.ts)",
  "tracking.v1.ProjectInput.color": "#rrggbb (projects/rules.ts projectColor)",
  "tracking.v1.ProjectInput.currency": "three letters (projects/rules.ts currencyCode)",
  "tracking.v1.ProjectInput.start_date": "YYYY-MM-DD (projects/rules.ts projectDate)",
  "tracking.v1.ProjectInput.end_date": "YYYY-MM-DD (projects/rules.ts projectDate)",
  "tracking.v1.CreateAlertRequest.source_kind": "one of the alert sources (alerts/rules.ts)",
  "tracking.v1.CreateAlertRequest.threshold_type": "one of the threshold types (alerts/rules.ts)",
  "tracking.v1.UpdateAlertRequest.source_kind": "one of the alert sources (alerts/rules.ts)",
  "tracking.v1.UpdateAlertRequest.threshold_type": "one of the threshold types (alerts/rules.ts)",
};

/** Requests that store nothing under their fields' names (filters, look-ups, sign-in). */
const READS = /^(List|Get|Delete|Search|Validate|Ping|Create(Session|ApiKey)|RequestPasswordReset)/;

async function columnWidths(migrations: Migration[]): Promise<Map<string, Map<string, number>>> {
  const db = knex({ client: "better-sqlite3", connection: { filename: ":memory:" }, useNullAsDefault: true });
  try {
    await migrate(db, migrations);
    const tables = new Map<string, Map<string, number>>();
    for (const { name } of (await db.raw("SELECT name FROM sqlite_master WHERE type = 'table'")) as { name: string }[]) {
      const widths = new Map<string, number>();
      for (const column of (await db.raw(`PRAGMA table_info(${name})`)) as { name: string; type: string }[]) {
        const width = /varchar\((\d+)\)/i.exec(column.type);
        if (width) widths.set(column.name, Number(width[1]));
      }
      tables.set(name, widths);
    }
    return tables;
  } finally {
    await db.destroy();
  }
}

const snake = (s: string) => s.replace(/[A-Z]/g, (c, i: number) => (i ? "_" : "") + c.toLowerCase());

/** The table an entity's name points at: its plural, else the plural of its last words (`workspace_tag` -> `tags`). */
function tableOf(entity: string, tables: Map<string, unknown>): string | undefined {
  if (TABLE_OF[entity]) return TABLE_OF[entity];
  const words = entity.split("_");
  for (let i = 0; i < words.length; i++) {
    const name = `${words.slice(i).join("_")}s`.replace(/ys$/, "ies");
    if (tables.has(name)) return name;
  }
  return undefined;
}

/** The entity a request or input message writes: `CreateClientRequest` -> `client`, `ProjectInput` -> `project`. */
const entityOf = (desc: DescMessage) => snake(desc.name.replace(/Request$|Input$/, "").replace(/^(Create|Update|Patch|Put|Post|Start|Stop|Set|Add|Bulk)+/, ""));

interface Stored {
  field: string;
  column: string;
  limit: number;
  width: number;
}

function storedFields(desc: DescMessage, tables: Map<string, Map<string, number>>, seen: Set<DescMessage>): Stored[] {
  if (seen.has(desc)) return [];
  seen.add(desc);
  const table = tableOf(entityOf(desc), tables);
  const out: Stored[] = [];
  for (const field of desc.fields) {
    if (field.fieldKind === "message" && !field.message.typeName.startsWith("google.")) out.push(...storedFields(field.message, tables, seen));
    const width = table === undefined ? undefined : tables.get(table)?.get(field.name);
    if (width === undefined || !isString(field)) continue;
    out.push({ field: `${desc.typeName}.${field.name}`, column: `${table}.${field.name}`, limit: declared(field), width });
  }
  return out;
}

const isString = (field: DescField) => (field.fieldKind === "scalar" && field.scalar === 9) || (field.fieldKind === "message" && field.message.typeName === "google.protobuf.StringValue");
const declared = (field: DescField) => (hasOption(field, limitsOption) ? getOption(field, limitsOption).maxLength : 0);

t.test("every stored request field declares at most its column's width", async (t) => {
  const checked: Stored[] = [];
  for (const service of ["hiring", "accounts", "tracking", "notifier"] as const) {
    const tables = await columnWidths(MIGRATIONS[service]);
    const seen = new Set<DescMessage>();
    for (const file of PROTO_FILES.filter((f) => f.proto.package === `${service}.v1`)) {
      for (const method of file.services.flatMap((s) => s.methods)) {
        if (!READS.test(method.name)) checked.push(...storedFields(method.input, tables, seen));
      }
    }
  }
  t.ok(checked.length >= 25, `the fields are found (${checked.length})`);
  const wider = checked.filter((s) => s.limit > s.width && !FORM_CHECKED[s.field]).map((s) => `${s.field}: ${s.limit} > ${s.column} ${s.width}`);
  t.same(wider, [], "fields whose declared limit exceeds the column");
  t.same(Object.keys(FORM_CHECKED).filter((name) => !checked.some((s) => s.field === name)), [], "every form-checked field is still a stored one");
  for (const name of ["tracking.v1.CreateClientRequest.name", "tracking.v1.ProjectInput.name", "accounts.v1.SignupRequest.email", "notifier.v1.CreateWorkspaceSubscriptionRequest.description"]) {
    t.ok(checked.some((s) => s.field === name), `${name} is among the checked`);
  }
});
