import type { ConnectRouter } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { WorkspaceRateService } from "../../../gen/accounts/v1/rates_pb.js";
import { rowId } from "../../../lib/ids.js";
import { isRateChangeMode } from "../../../lib/rate-change-modes.js";
import { rateMessage, type RateKey } from "../../../lib/rate-history.js";
import type { AccountsKit } from "../kit.js";
import { workspaceRateRequestInvalid } from "../errors.js";
import { applyWorkspaceRate, checkEntity, entityForChange } from "./apply.js";
import { workspaceRateHistory, type WorkspaceRateRow } from "./store.js";

/** The entity and type a request names (the tracking service checked them for its caller). */
function rateKey(req: { workspaceId: bigint; level: string; levelId: bigint; type: string }): RateKey {
  if (req.level !== "workspace" && req.level !== "workspace_user") throw workspaceRateRequestInvalid("level");
  if (req.type !== "billable_rates" && req.type !== "labor_costs") throw workspaceRateRequestInvalid("type");
  const workspace = rowId(req.workspaceId);
  if (workspace === undefined) throw workspaceRateRequestInvalid("workspace_id");
  // An id no row can have finds nothing: the level's 400.
  return { workspace, level: req.level, levelId: rowId(req.levelId) ?? 0n, type: req.type };
}

const workspaceRateMessage = (row: WorkspaceRateRow) => rateMessage(row, { workspaceUserId: row.level === "workspace_user" ? row.level_id : undefined });

/** Rates of workspaces and workspace users, for the tracking service's RateService. */
export function workspaceRateHandlers({ storage, clock }: AccountsKit) {
  return (router: ConnectRouter) =>
    router.service(WorkspaceRateService, {
      async createWorkspaceRate(req) {
        const key = rateKey(req);
        const mode = req.mode ?? null;
        if (mode !== null && !isRateChangeMode(mode)) throw workspaceRateRequestInvalid("mode");
        const start = req.start ? timestampDate(req.start) : undefined;
        if (mode === null && start === undefined) throw workspaceRateRequestInvalid("mode or start");
        if (!(req.amount > 0)) throw workspaceRateRequestInvalid("amount");
        const creator = rowId(req.creatorId);
        if (creator === undefined) throw workspaceRateRequestInvalid("creator_id");
        const now = clock.now();
        await storage.change(async (trx, emit) => {
          await entityForChange(trx, key);
          await workspaceRateHistory.add(
            trx,
            { workspace_id: key.workspace, level: key.level as WorkspaceRateRow["level"], level_id: key.levelId, type: key.type, amount: req.amount, rate_change_mode: mode, creator_id: creator },
            start,
            now,
          );
          await applyWorkspaceRate(trx, emit, key, creator, now);
        });
        return {};
      },

      async listWorkspaceRates(req) {
        const key = rateKey(req);
        await checkEntity(storage.db, key);
        return { rates: (await workspaceRateHistory.all(storage.db, key)).map(workspaceRateMessage) };
      },
    });
}
