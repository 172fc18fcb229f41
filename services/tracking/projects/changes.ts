import { ProjectInputSchema, type ProjectInput } from "../../../gen/tracking/v1/projects_pb.js";
import { checkDeclaredLength } from "../../../lib/field-limits.js";
import type { Knex } from "../../../lib/db.js";
import { idBinding, readId } from "../../../lib/ids.js";
import type { Emit } from "../../../lib/storage.js";
import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import { clientEvent } from "../clients/view.js";
import { checkBodyWorkspace, clientName } from "../clients/rules.js";
import { clients } from "../clients/store.js";
import { amountNegative, nameTaken, projectClientMissing, projectNameEmpty, recurringParametersMissing, templateInvalid, workspaceIdMismatch } from "../errors.js";
import {
  checkPremium,
  checkTimeframe,
  currencyCode,
  dayOf,
  defaultColor,
  projectColor,
  projectDate,
  projectName,
  rateChangeMode,
  recurringParameters,
} from "./rules.js";
import { projects, type ProjectRow } from "./store.js";

/** Fields an edit may set to null (PATCH `remove`; `client_id` 0 in a body). */
export type ClearableField = "client_id" | "end_date" | "estimated_hours" | "rate" | "fixed_fee" | "currency";

/** One edit of a project: the body's fields (POST, PUT, or built from PATCH operations) and the fields it clears. */
export interface ProjectEdit {
  input: Partial<Omit<ProjectInput, "$typeName">>;
  cleared?: ReadonlySet<ClearableField>;
}

/** The client the edit names: by id (which must be in the workspace), or by name (made when missing). */
async function clientOf(trx: Knex.Transaction, emit: Emit, scope: WorkspaceScope, edit: ProjectEdit, now: Date): Promise<bigint | null | undefined> {
  if (edit.cleared?.has("client_id")) return null;
  const id = edit.input.clientId ?? edit.input.cid;
  if (id !== undefined) {
    if (id === 0n) return null;
    const client = await clients.get(trx, scope.workspaceId, id);
    if (!client) throw projectClientMissing(id, scope.workspaceId);
    return client.id;
  }
  if (edit.input.clientName === undefined) return undefined;
  checkDeclaredLength(ProjectInputSchema.field.clientName, edit.input.clientName);
  const name = clientName(edit.input.clientName);
  const existing = await clients.query(trx, scope.workspaceId).andWhereRaw("LOWER(name) = ?", [name.toLowerCase()]).first("id");
  if (existing) return readId(existing.id);
  const created = await clients.insert(trx, { workspace_id: scope.workspaceId, name, notes: null, archived: false, creator_id: scope.userId, created_at: now, at: now });
  await emit(clientEvent("created", created, scope));
  return created.id;
}

/**
 * What an edit changes, checked: names, color, dates, the client (made from `client_name` when
 * missing), premium fields on a free workspace (402), and the name unique among the workspace's
 * live projects of the same client. `existing` is the project as it stands (undefined: a new one).
 */
export async function projectChanges(
  trx: Knex.Transaction,
  emit: Emit,
  scope: WorkspaceScope,
  edit: ProjectEdit,
  existing: ProjectRow | undefined,
  now: Date,
): Promise<Partial<ProjectRow>> {
  const input = edit.input;
  const cleared = edit.cleared ?? new Set<ClearableField>();
  const out: Partial<ProjectRow> = {};
  checkBodyWorkspace(input.wid, scope.workspaceId);
  if (input.workspaceId !== undefined && input.workspaceId !== 0n && input.workspaceId !== scope.workspaceId) throw workspaceIdMismatch();
  if (input.name !== undefined) {
    // A PATCH builds the input from its operations, which the field-limits interceptor saw only as JSON.
    checkDeclaredLength(ProjectInputSchema.field.name, input.name);
    out.name = projectName(input.name);
    out.sort_name = out.name.toLowerCase();
  } else if (!existing) throw projectNameEmpty();
  if (input.color !== undefined) out.color = projectColor(input.color);
  if (input.active !== undefined) out.active = input.active;
  if (input.isPrivate !== undefined) out.is_private = input.isPrivate;

  checkPremium(scope, "billable", input.billable);
  if (input.billable !== undefined) out.billable = input.billable;
  checkPremium(scope, "auto_estimates", input.autoEstimates);
  if (input.autoEstimates !== undefined) out.auto_estimates = input.autoEstimates;
  checkPremium(scope, "template", input.template);
  if (input.template !== undefined) out.template = input.template;
  for (const [field, value] of [["estimated_hours", input.estimatedHours], ["fixed_fee", input.fixedFee], ["rate", input.rate]] as const) {
    if (value !== undefined && value < 0) throw amountNegative(field);
  }
  checkPremium(scope, "estimated_hours", input.estimatedHours);
  if (input.estimatedHours !== undefined) out.estimated_seconds = Number(input.estimatedHours) * 3600;
  else if (cleared.has("estimated_hours")) out.estimated_seconds = null;
  checkPremium(scope, "fixed_fee", input.fixedFee);
  if (input.fixedFee !== undefined) out.fixed_fee = input.fixedFee;
  else if (cleared.has("fixed_fee")) out.fixed_fee = null;
  checkPremium(scope, "currency", input.currency);
  if (input.currency !== undefined) out.currency = currencyCode(input.currency);
  else if (cleared.has("currency")) out.currency = null;
  checkPremium(scope, "rate_change_mode", input.rateChangeMode);
  if (input.rateChangeMode !== undefined) rateChangeMode(input.rateChangeMode);
  checkPremium(scope, "rate", input.rate);
  if (input.rate !== undefined || cleared.has("rate")) {
    out.rate = input.rate ?? null;
    if (out.rate !== (existing?.rate ?? null)) out.rate_last_updated = now;
  }
  checkPremium(scope, "recurring", input.recurring);
  checkPremium(scope, "recurring_parameters", input.recurringParameters);
  if (input.recurring !== undefined) out.recurring = input.recurring;

  if (input.startDate !== undefined) out.start_date = projectDate(input.startDate, "start_date");
  if (input.endDate !== undefined) out.end_date = input.endDate.trim() === "" ? null : projectDate(input.endDate, "end_date");
  else if (cleared.has("end_date")) out.end_date = null;
  const start = out.start_date ?? existing?.start_date ?? dayOf(now);
  checkTimeframe(start, out.end_date !== undefined ? out.end_date : (existing?.end_date ?? null));

  const recurring = out.recurring ?? existing?.recurring ?? false;
  if (input.recurringParameters) out.recurring_parameters = recurringParameters(input.recurringParameters, start);
  if (recurring && !(out.recurring_parameters ?? existing?.recurring_parameters)) throw recurringParametersMissing();

  const client = await clientOf(trx, emit, scope, edit, now);
  if (client !== undefined) out.client_id = client;

  if (input.templateId !== undefined && input.templateId !== 0n) {
    const template = await projects.get(trx, scope.workspaceId, input.templateId);
    if (!template || template.server_deleted_at || !template.template) throw templateInvalid();
    out.template_id = template.id;
  }

  const name = out.sort_name ?? existing?.sort_name;
  const clientId = out.client_id !== undefined ? out.client_id : (existing?.client_id ?? null);
  if (name !== undefined && (out.sort_name !== undefined || out.client_id !== undefined)) {
    const q = projects.query(trx, scope.workspaceId).andWhere("sort_name", name).whereNull("server_deleted_at");
    if (clientId === null) q.whereNull("client_id");
    else q.andWhere("client_id", idBinding(clientId));
    if (existing) q.andWhereNot("id", idBinding(existing.id));
    // A locking read: on MySQL it also locks the gap where the name would go, so a concurrent
    // create of the same name waits (or deadlocks and is retried) and then sees this one.
    if (await q.forUpdate().first("id")) throw nameTaken();
  }
  return out;
}

/** A new project's row: the edit's changes over the workspace's defaults (and its template's settings). */
export async function newProjectRow(trx: Knex.Transaction, scope: WorkspaceScope, changes: Partial<ProjectRow>, now: Date): Promise<Omit<ProjectRow, "id">> {
  const template = changes.template_id ? await projects.get(trx, scope.workspaceId, changes.template_id) : undefined;
  const name = changes.name!;
  return {
    workspace_id: scope.workspaceId,
    client_id: template?.client_id ?? null,
    name,
    sort_name: name.toLowerCase(),
    active: true,
    is_private: template?.is_private ?? scope.rules.projectsPrivateByDefault,
    color: template?.color ?? defaultColor(name),
    billable: template?.billable ?? (scope.premium ? scope.rules.projectsBillableByDefault : false),
    template: false,
    template_id: null,
    auto_estimates: template?.auto_estimates ?? false,
    estimated_seconds: template?.estimated_seconds ?? null,
    currency: template?.currency ?? (scope.premium && scope.rules.defaultCurrency ? scope.rules.defaultCurrency : null),
    fixed_fee: template?.fixed_fee ?? null,
    rate: template?.rate ?? null,
    rate_last_updated: null,
    recurring: false,
    recurring_parameters: null,
    start_date: dayOf(now),
    end_date: null,
    creator_id: scope.userId,
    created_at: now,
    at: now,
    server_deleted_at: null,
    ...changes,
  };
}
