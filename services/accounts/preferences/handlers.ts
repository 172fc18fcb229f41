import { toJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { PreferenceService } from "../../../gen/accounts/v1/preferences_pb.js";
import type { AccountsKit } from "../kit.js";
import { applyChanges, changedSince, checkClient, preferenceChanges, preferencesView } from "./rules.js";
import { preferencesStore } from "./store.js";

/** The caller's own preferences. */
export function preferenceHandlers({ storage, clock, auth }: AccountsKit) {
  const { db } = storage;

  /** The caller's preferences and when they last changed; the time zone defaults to the profile's. */
  async function current(ctx: HandlerContext) {
    const user = await auth.currentUser(ctx);
    const stored = await preferencesStore.read(db, user.id);
    return { view: preferencesView(stored, { pg_time_zone_name: user.timezone }), updatedAt: stored.updatedAt };
  }

  /** Applies a POST body's changes to the caller's preferences (every client shares them). */
  async function update(body: Value | undefined, ctx: HandlerContext) {
    const user = await auth.currentUser(ctx);
    const changes = preferenceChanges(body ? (toJson(ValueSchema, body) as JsonValue) : undefined);
    const now = clock.now();
    await storage.change(async (trx) => {
      const stored = await preferencesStore.readForChange(trx, user.id);
      await preferencesStore.write(trx, user.id, stored, applyChanges(stored, changes), now);
    });
  }

  return (router: ConnectRouter) =>
    router.service(PreferenceService, {
      async getPreferences(_req, ctx) {
        return { preferences: (await current(ctx)).view };
      },

      async updatePreferences(req, ctx) {
        await update(req.preferences, ctx);
        return {};
      },

      async updateClientPreferences(req, ctx) {
        checkClient(req.client);
        await update(req.preferences, ctx);
        return {};
      },

      async getClientPreferences(req, ctx) {
        checkClient(req.client);
        const { view, updatedAt } = await current(ctx);
        return { preferences: changedSince(updatedAt, req.since) ? view : {} };
      },
    });
}
