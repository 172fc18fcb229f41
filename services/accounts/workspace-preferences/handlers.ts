import { toJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { WorkspacePreferenceService } from "../../../gen/accounts/v1/workspace_settings_pb.js";
import type { Knex } from "../../../lib/db.js";
import type { AccountsKit } from "../kit.js";
import { memberWorkspaceScope } from "../access.js";
import { constraintsWorkspaceMissing } from "../errors.js";
import { workspaces, type WorkspaceRow } from "../workspaces/store.js";
import { workspaceEvent } from "../workspaces/view.js";
import { PRICING_PLAN } from "../organizations/plan.js";
import { workspacePreferenceChanges, workspacePreferencesView } from "./rules.js";
import { reportLockedAt, setReportLockedAt } from "./store.js";

/** A workspace's preferences: its members read them, its admins change them. */
export function workspacePreferenceHandlers({ storage, clock }: AccountsKit) {
  const { db } = storage;

  async function view(q: Knex, workspace: WorkspaceRow, premium: boolean) {
    return workspacePreferencesView({
      hideStartEndTimes: workspace.hide_start_end_times,
      logo: workspace.logo_url,
      reportLockedAt: await reportLockedAt(q, workspace.id),
      pricingPlan: premium ? PRICING_PLAN.paid : PRICING_PLAN.free,
    });
  }

  return (router: ConnectRouter) =>
    router.service(WorkspacePreferenceService, {
      async getWorkspacePreferences(_req, ctx: HandlerContext) {
        const { seen } = memberWorkspaceScope(ctx);
        return { preferences: await view(db, seen.workspace, seen.premium) };
      },

      async updateWorkspacePreferences(req, ctx) {
        const { seen, userId } = memberWorkspaceScope(ctx);
        const changes = workspacePreferenceChanges(req.preferences ? (toJson(ValueSchema, req.preferences) as JsonValue) : undefined, seen.premium);
        const now = clock.now();
        const preferences = await storage.change(async (trx, emit) => {
          let workspace = await workspaces.getForChange(trx, seen.workspace.organization_id, seen.workspace.id);
          if (!workspace) throw constraintsWorkspaceMissing();
          if (changes.hideStartEndTimes !== undefined && changes.hideStartEndTimes !== workspace.hide_start_end_times) {
            workspace = await workspaces.update(trx, workspace, { hide_start_end_times: changes.hideStartEndTimes, updated_at: now });
            await emit(workspaceEvent("updated", { ...seen, workspace }, userId));
          }
          if (changes.reportLockedAt !== undefined) await setReportLockedAt(trx, workspace.id, changes.reportLockedAt, now);
          return view(trx, workspace, seen.premium);
        });
        return { preferences };
      },
    });
}
