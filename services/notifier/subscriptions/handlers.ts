import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { TrackingWebhookService } from "../../../gen/notifier/v1/tracking_webhooks_pb.js";
import { WebhookAdminService, type EventFilter } from "../../../gen/notifier/v1/webhooks_pb.js";
import { descriptionTaken, enabledRequired, internalDescriptionTaken, noServiceFamily, subscriptionNotFound, subscriptionNotFoundIn, targetRefused, webhookLimitReached, workspaceIdRequired } from "../errors.js";
import { TRACKING_EVENTS } from "../../../lib/event-catalog.js";
import { caller } from "../../../lib/identity.js";
import { workspaceScope } from "../../../lib/workspace-scope.js";
import { newSecret } from "../delivery/signing.js";
import { checkTargetUrl } from "../delivery/target.js";
import type { NotifierKit } from "../kit.js";
import {
  callbackUrl,
  familyOfService,
  internalFilters,
  newValidationCode,
  subscriptionDescription,
  subscriptionIdOf,
  trackingFilters,
  workspaceLimits,
} from "./rules.js";
import type { SubscriptionRow } from "./store.js";
import { subscriptionMessage, webhookSubscriptionMessage } from "./view.js";


/** The link that validates a subscription, on the host the caller used. */
function validationUrl(ctx: HandlerContext, sub: SubscriptionRow): string | undefined {
  const requestUrl = caller(ctx).requestUrl;
  if (!requestUrl || !sub.validation_code) return undefined;
  return `${new URL(requestUrl).origin}/webhooks/api/v1/validate/${sub.workspace_id}/${sub.id}/${sub.validation_code}`;
}

function filtersOf(input: EventFilter[], premium: boolean) {
  return trackingFilters(
    input.map((f) => ({ entity: f.entity, action: f.action })),
    workspaceLimits(premium).maxEventsPerWebhook,
  );
}

/**
 * Webhook subscriptions: the time-tracking webhooks API, and the subscription RPCs of the
 * internal WebhookAdminService.
 */
export function subscriptionHandlers(kit: NotifierKit) {
  return (router: ConnectRouter) => {
    trackingWebhookRoutes(kit)(router);
    adminSubscriptionRoutes(kit)(router);
  };
}

/**
 * The time-tracking webhooks API. Every workspace-scoped call asks the accounts service whether
 * the caller is a member (the access the proto declares, resolved before the handler runs);
 * members see and change their own subscriptions, workspace admins every subscription of the
 * workspace (as the real service's "user creator" rules say).
 */
function trackingWebhookRoutes({ subscriptions, notifications, clock, targets, pinger, dispatcher }: NotifierKit) {
  /** The workspace's time-tracking subscription of that id, if there is one. */
  async function inWorkspace(workspaceId: bigint, subscriptionId: bigint): Promise<SubscriptionRow | undefined> {
    const sub = await subscriptions.get(subscriptionId);
    return sub && sub.family === "tracking" && sub.workspace_id === String(workspaceId) ? sub : undefined;
  }

  /** The caller's subscription in the workspace, or 404 (also for another workspace's ids). */
  async function visible(ctx: HandlerContext, workspaceId: bigint, subscriptionId: bigint) {
    const scope = workspaceScope(ctx);
    const sub = await inWorkspace(workspaceId, subscriptionId);
    if (!sub || (!scope.admin && sub.user_id !== scope.userId)) throw subscriptionNotFoundIn(subscriptionId, workspaceId);
    return { sub, scope };
  }

  async function hasPending(sub: SubscriptionRow): Promise<boolean> {
    const pending = await notifications.pendingCounts([sub.id]);
    return (pending.get(sub.id) ?? 0) > 0;
  }

  async function answer(sub: SubscriptionRow) {
    return { subscription: webhookSubscriptionMessage(sub, await hasPending(sub)) };
  }

  return (router: ConnectRouter) =>
    router.service(TrackingWebhookService, {
      async listWorkspaceSubscriptions(req, ctx) {
        const scope = workspaceScope(ctx);
        const rows = (await subscriptions.ofWorkspace("tracking", String(req.workspaceId))).filter((s) => scope.admin || s.user_id === scope.userId);
        const pending = await notifications.pendingCounts(rows.map((r) => r.id));
        return { subscriptions: rows.map((r) => webhookSubscriptionMessage(r, (pending.get(r.id) ?? 0) > 0)) };
      },

      async createWorkspaceSubscription(req, ctx) {
        const { userId, premium } = workspaceScope(ctx);
        const description = subscriptionDescription(req.description);
        const eventFilters = filtersOf(req.eventFilters, premium);
        const url = await callbackUrl(req.urlCallback, targets);
        const { maxWebhooks } = workspaceLimits(premium);
        const now = clock.now();
        const sub = await subscriptions.insertWithin(
          {
            family: "tracking",
            workspace_id: String(req.workspaceId),
            user_id: userId,
            description,
            url,
            secret: req.secret?.trim() || newSecret(),
            event_filters: eventFilters,
            enabled: req.enabled ?? true,
            validation_code: newValidationCode(),
            validated_at: null,
            created_at: now,
            updated_at: now,
          },
          maxWebhooks,
          { onDuplicate: descriptionTaken },
        );
        if (!sub) throw webhookLimitReached(maxWebhooks);
        pinger.pingLater(sub, validationUrl(ctx, sub));
        return { subscription: webhookSubscriptionMessage(sub, false) };
      },

      async updateWorkspaceSubscription(req, ctx) {
        const { sub, scope } = await visible(ctx, req.workspaceId, req.subscriptionId);
        const url = await callbackUrl(req.urlCallback, targets);
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
        const updated = await subscriptions.update(sub.id, changes, { onDuplicate: descriptionTaken });
        if (!updated) throw subscriptionNotFoundIn(req.subscriptionId, req.workspaceId);
        if (url !== sub.url) pinger.pingLater(updated, validationUrl(ctx, updated));
        if (updated.enabled) dispatcher.kick();
        return answer(updated);
      },

      async setWorkspaceSubscriptionEnabled(req, ctx) {
        const { sub } = await visible(ctx, req.workspaceId, req.subscriptionId);
        if (req.enabled === undefined) throw enabledRequired();
        const updated = await subscriptions.update(sub.id, { enabled: req.enabled, updated_at: clock.now() });
        if (!updated) throw subscriptionNotFoundIn(req.subscriptionId, req.workspaceId);
        // Notifications queued before it was disabled wait for it; they go now.
        if (req.enabled) dispatcher.kick();
        return answer(updated);
      },

      async deleteWorkspaceSubscription(req, ctx) {
        const { sub } = await visible(ctx, req.workspaceId, req.subscriptionId);
        const pending = await hasPending(sub);
        // Of two DELETEs at once, one removes it; the other finds it gone, as it would after.
        if (!(await subscriptions.delete(sub.id))) throw subscriptionNotFoundIn(req.subscriptionId, req.workspaceId);
        return { subscription: webhookSubscriptionMessage(sub, pending, clock.now()) };
      },

      async validateWorkspaceSubscription(req) {
        const sub = await inWorkspace(req.workspaceId, req.subscriptionId);
        // The code is the credential of this public link: a wrong one (or one a PUT or a ping has
        // replaced) looks like no subscription. The store compares it with the hash it keeps.
        if (!sub || !(await subscriptions.validate(sub.id, req.validationCode, clock.now()))) throw subscriptionNotFoundIn(req.subscriptionId, req.workspaceId);
        return { status: "OK" };
      },

      async pingWorkspaceSubscription(req, ctx) {
        const { sub } = await visible(ctx, req.workspaceId, req.subscriptionId);
        // Only the code's hash is kept: an unvalidated subscription's ping carries a fresh code.
        const target = sub.validated_at ? sub : await subscriptions.reissueValidationCode(sub.id, newValidationCode());
        if (!target) throw subscriptionNotFoundIn(req.subscriptionId, req.workspaceId);
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

/**
 * The subscription RPCs of the internal WebhookAdminService: what the hiring application and
 * operators do. Its subscriptions are trusted (validated at once, no plan limits); target URL
 * rules still apply. (The service's other RPCs are the notifications resource's.)
 */
function adminSubscriptionRoutes({ subscriptions, notifications, clock, targets }: NotifierKit) {
  const { method } = WebhookAdminService;
  return (router: ConnectRouter) =>
    router
      .rpc(method.createSubscription, async (req) => {
        const family = familyOfService(req.service);
        if (!family) throw noServiceFamily();
        if (!req.workspaceId) throw workspaceIdRequired();
        const problem = await checkTargetUrl(req.url, targets);
        if (problem) throw targetRefused(problem);
        const now = clock.now();
        const row = await subscriptions.insert(
          {
            family,
            workspace_id: req.workspaceId,
            user_id: 0n,
            description: req.description,
            url: req.url,
            secret: newSecret(),
            event_filters: internalFilters(req.eventFilters),
            enabled: true,
            validation_code: null,
            validated_at: now,
            created_at: now,
            updated_at: now,
          },
          { onDuplicate: internalDescriptionTaken },
        );
        return { subscription: subscriptionMessage(row, 0), secret: row.secret };
      })
      .rpc(method.listSubscriptions, async (req) => {
        const family = familyOfService(req.service);
        if (!family) throw noServiceFamily();
        const rows = await subscriptions.ofWorkspace(family, req.workspaceId);
        const pending = await notifications.pendingCounts(rows.map((r) => r.id));
        return { subscriptions: rows.map((r) => subscriptionMessage(r, pending.get(r.id) ?? 0)) };
      })
      .rpc(method.deleteSubscription, async (req) => {
        if (!(await subscriptions.delete(subscriptionIdOf(req.subscriptionId)))) throw subscriptionNotFound(req.subscriptionId);
        return {};
      });
}
