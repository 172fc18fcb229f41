import { toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { CallerService } from "../../../gen/accounts/v1/lookups_pb.js";
import { noAccess } from "../../../lib/errors.js";
import { requireUser } from "../../../lib/identity.js";
import { rowId } from "../../../lib/ids.js";
import type { AccountsKit } from "../kit.js";
import { memberWorkspaces } from "../workspaces/store.js";
import { featuresOf, flagChanges, mergedFlags } from "./rules.js";
import { flagsOf, lockFlags, writeFlags } from "./store.js";

function callerOf(ctx: HandlerContext): bigint {
  const user = rowId(requireUser(ctx));
  if (user === undefined) throw noAccess();
  return user;
}

const flagsObject = (flags: Map<string, JsonValue>): JsonObject => Object.fromEntries(flags);

/** What the caller's clients ask about the caller: workspace features, flags, location. */
export function callerHandlers({ storage, clock }: AccountsKit) {
  const { db } = storage;

  return (router: ConnectRouter) =>
    router.service(CallerService, {
      async listMyFeatures(_req, ctx) {
        const seen = await memberWorkspaces(db, callerOf(ctx));
        return { workspaces: seen.map((w) => ({ workspaceId: w.workspace.id, features: featuresOf(w.premium) })) };
      },

      async getMyFlags(_req, ctx) {
        return { flags: flagsObject(await flagsOf(db, callerOf(ctx))) };
      },

      async setMyFlags(req, ctx) {
        const user = callerOf(ctx);
        const changes = flagChanges(req.flags ? (toJson(ValueSchema, req.flags) as JsonValue) : undefined);
        const now = clock.now();
        const flags = await storage.change(async (trx) => {
          await lockFlags(trx, user);
          const merged = mergedFlags(await flagsOf(trx, user), changes);
          await writeFlags(trx, user, changes, now);
          return merged;
        });
        return { flags: flagsObject(new Map([...flags].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))) };
      },

      // A self-hosted installation has no IP location database: "no data", the empty answer.
      async getMyLocation() {
        return { location: {} };
      },
    });
}
