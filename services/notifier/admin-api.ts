import type { ConnectRouter } from "@connectrpc/connect";
import { WebhookAdminService } from "../../gen/notifier/v1/webhooks_pb.js";
import type { Clock } from "../../lib/clock.js";
import { badRequest, notFound } from "../../lib/errors.js";
import { isUniqueViolation } from "../../lib/db.js";
import { checkTargetUrl, type TargetRules } from "./target.js";
import { newSecret } from "./signing.js";
import { familyOfService, internalFilters, MAX_DESCRIPTION_LENGTH } from "./subscriptions.js";
import { attemptMessage, notificationMessage, subscriptionMessage } from "./messages.js";
import type { DeliveryMetrics } from "./metrics.js";
import type { Dispatcher } from "./dispatcher.js";
import type { NotificationState, NotifierStore } from "./store.js";

const STATES = new Set<NotificationState>(["pending", "delivered", "given_up"]);

/** A subscription id as the internal RPCs carry it (decimal text). */
export function subscriptionIdOf(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw notFound(`subscription ${raw} not found`);
  return Number(raw);
}

function pageSize(limit: number): number {
  if (limit < 0) throw badRequest("limit must not be negative");
  return Math.min(limit || 100, 1000);
}

/**
 * The internal WebhookAdminService: what the hiring application and operators do. Its
 * subscriptions are trusted (validated at once, no plan limits); target URL rules still apply.
 */
export function webhookAdminRoutes(deps: { store: NotifierStore; clock: Clock; rules: TargetRules; metrics: DeliveryMetrics; dispatcher: Dispatcher }) {
  const { store, clock, rules, metrics, dispatcher } = deps;
  return (router: ConnectRouter) =>
    router.service(WebhookAdminService, {
      async createSubscription(req) {
        const family = familyOfService(req.service);
        if (!family) throw badRequest("service must be hiring, tracking or accounts");
        if (!req.workspaceId) throw badRequest("workspace_id is required");
        const problem = await checkTargetUrl(req.url, rules);
        if (problem) throw badRequest(problem);
        if (req.description.length > MAX_DESCRIPTION_LENGTH) throw badRequest(`description must not be longer than ${MAX_DESCRIPTION_LENGTH} characters`);
        const now = clock.now();
        const row = await store
          .insertSubscription({
            family,
            workspace_id: req.workspaceId,
            user_id: 0,
            description: req.description,
            url: req.url,
            secret: newSecret(),
            event_filters: internalFilters(req.eventFilters),
            enabled: true,
            validation_code: null,
            validated_at: now,
            created_at: now,
            updated_at: now,
          })
          .catch((err: unknown) => {
            throw isUniqueViolation(err) ? badRequest("a subscription with this description exists in the workspace") : err;
          });
        return { subscription: subscriptionMessage(row, 0), secret: row.secret };
      },

      async listSubscriptions(req) {
        const family = familyOfService(req.service);
        if (!family) throw badRequest("service must be hiring, tracking or accounts");
        const rows = await store.subscriptionsOf(family, req.workspaceId);
        const pending = await store.pendingCounts(rows.map((r) => r.id));
        return { subscriptions: rows.map((r) => subscriptionMessage(r, pending.get(r.id) ?? 0)) };
      },

      async deleteSubscription(req) {
        if (!(await store.deleteSubscription(subscriptionIdOf(req.subscriptionId)))) throw notFound(`subscription ${req.subscriptionId} not found`);
        return {};
      },

      async listDeliveryAttempts(req) {
        const id = subscriptionIdOf(req.subscriptionId);
        if (!(await store.subscription(id))) throw notFound(`subscription ${req.subscriptionId} not found`);
        const rows = await store.attempts(id, pageSize(req.limit), Number(req.beforeAttemptId) || undefined);
        return { attempts: rows.map(attemptMessage) };
      },

      async listNotifications(req) {
        const id = subscriptionIdOf(req.subscriptionId);
        if (req.state && !STATES.has(req.state as NotificationState)) throw badRequest("state must be pending, delivered or given_up");
        if (!(await store.subscription(id))) throw notFound(`subscription ${req.subscriptionId} not found`);
        const rows = await store.notifications(id, (req.state || undefined) as NotificationState | undefined, pageSize(req.limit));
        return { notifications: rows.map(notificationMessage) };
      },

      async replayNotification(req) {
        const existing = await store.notification(req.notificationId);
        if (!existing) throw notFound(`notification ${req.notificationId} not found`);
        const replayed = await store.replay(req.notificationId, clock.now());
        if (!replayed) throw badRequest(`notification ${req.notificationId} is ${existing.state}; only a given-up notification can be replayed`);
        dispatcher.kick();
        return { notification: notificationMessage(replayed) };
      },

      async getMetrics() {
        const depths = await store.pendingCounts();
        const figures = await metrics.figures();
        return {
          deliveries: BigInt(figures.deliveries),
          failures: BigInt(figures.failures),
          giveUps: BigInt(figures.giveUps),
          latencyCount: BigInt(figures.latencyCount),
          latencySumMs: figures.latencySumMs,
          latencyP50Ms: figures.latencyP50Ms,
          latencyP99Ms: figures.latencyP99Ms,
          queueDepths: [...depths].map(([id, pending]) => ({ subscriptionId: String(id), pending: BigInt(pending) })),
        };
      },
    });
}
