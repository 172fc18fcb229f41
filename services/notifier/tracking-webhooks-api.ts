import { Code, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { TrackingWebhookService } from "../../gen/notifier/v1/tracking_webhooks_pb.js";
import type { EventFilter } from "../../gen/notifier/v1/webhooks_pb.js";
import type { Clock } from "../../lib/clock.js";
import { workspaceScope } from "../../lib/workspace-scope.js";
import { caller } from "../../lib/identity.js";
import { badRequest, notFound, paymentRequired } from "../../lib/errors.js";
import { isUniqueViolation } from "../../lib/db.js";
import { randomToken, storageId } from "../../lib/ids.js";
import { TRACKING_EVENTS } from "../../lib/event-catalog.js";
import { checkTargetUrl, type TargetRules } from "./target.js";
import { newSecret } from "./signing.js";
import { subscriptionDescription, trackingFilters, workspaceLimits } from "./subscriptions.js";
import { webhookSubscriptionMessage } from "./messages.js";
import type { Dispatcher } from "./dispatcher.js";
import type { Pinger } from "./ping.js";
import type { NotifierStore, SubscriptionRow } from "./store.js";

const notFoundIn = (subscriptionId: bigint, workspaceId: bigint) => notFound(`subscription ${subscriptionId} for workspace ${workspaceId} was not found`);

async function callbackUrl(raw: string, rules: TargetRules): Promise<string> {
  const url = raw.trim();
  if (!url) throw badRequest("URL callback must not be empty");
  const problem = await checkTargetUrl(url, rules);
  if (problem) throw badRequest(problem);
  return url;
}

/** The link that validates a subscription, on the host the caller used. */
function validationUrl(ctx: HandlerContext, sub: SubscriptionRow): string | undefined {
  const requestUrl = caller(ctx).requestUrl;
  if (!requestUrl || !sub.validation_code) return undefined;
  return `${new URL(requestUrl).origin}/webhooks/api/v1/validate/${sub.workspace_id}/${sub.id}/${sub.validation_code}`;
}

const newValidationCode = () => randomToken(24);

/**
 * The time-tracking webhooks API. Every workspace-scoped call asks the accounts service whether
 * the caller is a member; members see and change their own subscriptions, workspace admins
 * every subscription of the workspace (as the real service's "user creator" rules say).
 */
export function trackingWebhookRoutes(deps: { store: NotifierStore; clock: Clock; rules: TargetRules; pinger: Pinger; dispatcher: Dispatcher }) {
  const { store, clock, rules, pinger, dispatcher } = deps;

  /** The workspace's time-tracking subscription of that id, if there is one. */
  async function inWorkspace(workspaceId: bigint, subscriptionId: bigint): Promise<SubscriptionRow | undefined> {
    const id = storageId(subscriptionId);
    const sub = id === undefined ? undefined : await store.subscription(id);
    return sub && sub.family === "tracking" && sub.workspace_id === String(workspaceId) ? sub : undefined;
  }

  /** The caller's subscription in the workspace, or 404 (also for another workspace's ids). */
  async function visible(ctx: HandlerContext, workspaceId: bigint, subscriptionId: bigint) {
    const scope = workspaceScope(ctx);
    const sub = await inWorkspace(workspaceId, subscriptionId);
    if (!sub || (!scope.admin && BigInt(sub.user_id) !== scope.userId)) throw notFoundIn(subscriptionId, workspaceId);
    return { sub, scope };
  }

  async function answer(sub: SubscriptionRow) {
    const pending = await store.pendingCounts([sub.id]);
    return { subscription: webhookSubscriptionMessage(sub, (pending.get(sub.id) ?? 0) > 0) };
  }

  function uniqueDescription(err: unknown): never {
    if (isUniqueViolation(err)) throw badRequest("Subscription description must be unique in the workspace");
    throw err;
  }

  function filtersOf(input: EventFilter[], premium: boolean) {
    return trackingFilters(
      input.map((f) => ({ entity: f.entity, action: f.action })),
      workspaceLimits(premium).maxEventsPerWebhook,
    );
  }

  return (router: ConnectRouter) =>
    router.service(TrackingWebhookService, {
      async listWorkspaceSubscriptions(req, ctx) {
        const scope = workspaceScope(ctx);
        const rows = (await store.subscriptionsOf("tracking", String(req.workspaceId))).filter((s) => scope.admin || BigInt(s.user_id) === scope.userId);
        const pending = await store.pendingCounts(rows.map((r) => r.id));
        return { subscriptions: rows.map((r) => webhookSubscriptionMessage(r, (pending.get(r.id) ?? 0) > 0)) };
      },

      async createWorkspaceSubscription(req, ctx) {
        const { userId, premium } = workspaceScope(ctx);
        const description = subscriptionDescription(req.description);
        const eventFilters = filtersOf(req.eventFilters, premium);
        const url = await callbackUrl(req.urlCallback, rules);
        const { maxWebhooks } = workspaceLimits(premium);
        const now = clock.now();
        const sub = await store
          .insertSubscriptionWithin({
            family: "tracking",
            workspace_id: String(req.workspaceId),
            user_id: Number(userId),
            description,
            url,
            secret: req.secret?.trim() || newSecret(),
            event_filters: eventFilters,
            enabled: req.enabled ?? true,
            validation_code: newValidationCode(),
            validated_at: null,
            created_at: now,
            updated_at: now,
          }, maxWebhooks)
          .catch(uniqueDescription);
        if (!sub) throw paymentRequired(`The workspace has reached its maximum of ${maxWebhooks} webhooks`);
        pinger.pingLater(sub, validationUrl(ctx, sub));
        return { subscription: webhookSubscriptionMessage(sub, false) };
      },

      async updateWorkspaceSubscription(req, ctx) {
        const { sub, scope } = await visible(ctx, req.workspaceId, req.subscriptionId);
        const url = await callbackUrl(req.urlCallback, rules);
        const changes: Partial<SubscriptionRow> = {
          description: subscriptionDescription(req.description),
          event_filters: filtersOf(req.eventFilters, scope.premium),
          url,
          updated_at: clock.now(),
        };
        if (req.enabled !== undefined) changes.enabled = req.enabled;
        if (req.secret?.trim()) changes.secret = req.secret.trim();
        // A new URL has to prove again that it wants the events.
        if (url !== sub.url) Object.assign(changes, { validation_code: newValidationCode(), validated_at: null });
        // A concurrent DELETE may have won: then there is nothing to answer.
        const updated = await store.updateSubscription(sub.id, changes).catch(uniqueDescription);
        if (!updated) throw notFoundIn(req.subscriptionId, req.workspaceId);
        if (url !== sub.url) pinger.pingLater(updated, validationUrl(ctx, updated));
        if (updated.enabled) dispatcher.kick();
        return answer(updated);
      },

      async setWorkspaceSubscriptionEnabled(req, ctx) {
        const { sub } = await visible(ctx, req.workspaceId, req.subscriptionId);
        if (req.enabled === undefined) throw badRequest("Field 'enabled' is required");
        const updated = await store.updateSubscription(sub.id, { enabled: req.enabled, updated_at: clock.now() });
        if (!updated) throw notFoundIn(req.subscriptionId, req.workspaceId);
        // Notifications queued before it was disabled wait for it; they go now.
        if (req.enabled) dispatcher.kick();
        return answer(updated);
      },

      async deleteWorkspaceSubscription(req, ctx) {
        const { sub } = await visible(ctx, req.workspaceId, req.subscriptionId);
        const pending = await store.pendingCounts([sub.id]);
        // Of two DELETEs at once, one removes it; the other finds it gone, as it would after.
        if (!(await store.deleteSubscription(sub.id))) throw notFoundIn(req.subscriptionId, req.workspaceId);
        return { subscription: webhookSubscriptionMessage(sub, (pending.get(sub.id) ?? 0) > 0, clock.now()) };
      },

      async validateWorkspaceSubscription(req) {
        const sub = await inWorkspace(req.workspaceId, req.subscriptionId);
        // The code is the credential of this public link: a wrong one (or one a PUT or a ping has
        // replaced) looks like no subscription. The store compares it with the hash it keeps.
        if (!sub || !(await store.validate(sub.id, req.validationCode, clock.now()))) throw notFoundIn(req.subscriptionId, req.workspaceId);
        return { status: "OK" };
      },

      async pingWorkspaceSubscription(req, ctx) {
        const { sub } = await visible(ctx, req.workspaceId, req.subscriptionId);
        // Only the code's hash is kept: an unvalidated subscription's ping carries a fresh code.
        const target = sub.validated_at ? sub : await store.reissueValidationCode(sub.id, newValidationCode());
        if (!target) throw notFoundIn(req.subscriptionId, req.workspaceId);
        const outcome = await pinger.ping(target, validationUrl(ctx, target));
        return { status: outcome.status };
      },

      async listEventFilters() {
        return { eventFilters: Object.fromEntries(Object.entries(TRACKING_EVENTS).map(([entity, actions]) => [entity, [...actions]])) };
      },

      async getWorkspaceLimits(req, ctx) {
        const { premium } = workspaceScope(ctx);
        const limits = workspaceLimits(premium);
        return { maxWebhooks: limits.maxWebhooks, maxEventsPerWebhook: limits.maxEventsPerWebhook };
      },

      async getStatus() {
        return { status: "OK" };
      },
    });
}
