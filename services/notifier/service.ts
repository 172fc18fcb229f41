import { create, fromBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { EventSchema, type Event } from "../../gen/events/v1/event_pb.js";
import { SubscriptionSchema, WebhookAdminService, type EventFilter, type Subscription } from "../../gen/notifier/v1/webhooks_pb.js";
import type { Clock } from "../../lib/clock.js";
import type { BusMessage } from "../../lib/bus.js";
import { invalid, notFound } from "../../lib/errors.js";
import { sortableId } from "../../lib/ids.js";
import { checkTargetUrl, type TargetRules } from "./target.js";
import { newSecret } from "./signing.js";
import { hiringPayload, trackingPayload } from "./payloads.js";
import type { NotifierStore, SubscriptionRow } from "./store.js";

const SERVICES = new Set(["hiring", "accounts", "tracking"]);

interface Filter {
  entity: string;
  action: string;
}

export function matches(filters: Filter[], event: Pick<Event, "entity" | "action">): boolean {
  return filters.some((f) => (f.entity === "*" || f.entity === event.entity) && (f.action === "*" || f.action === event.action));
}

function subscriptionMessage(row: SubscriptionRow): Subscription {
  return create(SubscriptionSchema, {
    subscriptionId: row.id,
    service: row.service,
    workspaceId: row.workspace_id,
    url: row.url,
    description: row.description,
    eventFilters: JSON.parse(row.event_filters),
    enabled: row.enabled,
    createdAt: timestampFromDate(row.created_at),
  });
}

/** Turns an event from the bus into queued notifications, one per matching subscription. */
export function createIngest(store: NotifierStore, clock: Clock, onQueued: () => void) {
  return async (msg: BusMessage): Promise<void> => {
    const event = fromBinary(EventSchema, msg.data);
    // Time-tracking subscriptions receive the accounts and tracking services' events.
    const family = event.service === "hiring" ? ["hiring"] : ["accounts", "tracking"];
    const subs: SubscriptionRow[] = [];
    for (const service of family) subs.push(...(await store.subscriptions(service, event.workspaceId)));
    const now = clock.now();
    const rows = subs
      .filter((s) => s.enabled && matches(JSON.parse(s.event_filters), event))
      .map((s) => {
        const id = `ntf_${sortableId(now.getTime()).toLowerCase()}`;
        const payload = s.service === "hiring" ? hiringPayload(id, event) : trackingPayload(id, s.id, s.url, event, now);
        return {
          id,
          subscription_id: s.id,
          event_id: event.id,
          body: JSON.stringify(payload),
          state: "pending" as const,
          attempts: 0,
          next_attempt_at_ms: now.getTime(),
        };
      });
    await store.enqueue(rows, now);
    if (rows.length) onQueued();
  };
}

function normalizeFilters(filters: EventFilter[]): Filter[] {
  const out = filters.length ? filters.map((f) => ({ entity: f.entity || "*", action: f.action || "*" })) : [{ entity: "*", action: "*" }];
  const seen = new Set(out.map((f) => `${f.entity}/${f.action}`));
  if (seen.size !== out.length) throw invalid("event filters must not repeat");
  return out;
}

export function webhookAdminRoutes(store: NotifierStore, clock: Clock, rules: TargetRules) {
  return (router: ConnectRouter) =>
    router.service(WebhookAdminService, {
      async createSubscription(req) {
        if (!SERVICES.has(req.service)) throw invalid("service must be hiring, accounts or tracking");
        if (!req.workspaceId) throw invalid("workspace_id is required");
        const problem = checkTargetUrl(req.url, rules);
        if (problem) throw invalid(problem);
        const row: SubscriptionRow = {
          id: `sub_${sortableId().toLowerCase()}`,
          service: req.service,
          workspace_id: req.workspaceId,
          url: req.url,
          description: req.description.slice(0, 200),
          secret: newSecret(),
          event_filters: JSON.stringify(normalizeFilters(req.eventFilters)),
          enabled: true,
          created_at: clock.now(),
        };
        await store.insertSubscription(row);
        return { subscription: subscriptionMessage(row), secret: row.secret };
      },

      async listSubscriptions(req) {
        const rows = await store.subscriptions(req.service, req.workspaceId);
        return { subscriptions: rows.map(subscriptionMessage) };
      },

      async deleteSubscription(req) {
        if (!(await store.deleteSubscription(req.subscriptionId))) throw notFound(`subscription ${req.subscriptionId} not found`);
        return {};
      },
    });
}
