import type { ConnectRouter } from "@connectrpc/connect";
import { WebhookAdminService } from "../../../gen/notifier/v1/webhooks_pb.js";
import { notificationNotFound, notReplayable, subscriptionNotFound } from "../errors.js";
import type { NotifierKit } from "../kit.js";
import { subscriptionIdOf } from "../subscriptions/rules.js";
import { pageSize, stateFilter } from "./rules.js";
import { attemptMessage, notificationMessage } from "./view.js";

/**
 * Notifications and the delivery log: the operators' RPCs of the internal WebhookAdminService
 * (a subscription's log and queue, replaying a given-up notification, the delivery figures).
 * (The service's subscription RPCs are the subscriptions resource's.)
 */
export function notificationHandlers({ subscriptions, notifications, clock, dispatcher, metrics }: NotifierKit) {
  const { method } = WebhookAdminService;

  /** 404 unless the subscription (of the id the RPC carried as `raw`) exists. */
  async function mustExist(id: bigint, raw: string): Promise<void> {
    if (!(await subscriptions.get(id))) throw subscriptionNotFound(raw);
  }

  return (router: ConnectRouter) =>
    router
      .rpc(method.listDeliveryAttempts, async (req) => {
        const id = subscriptionIdOf(req.subscriptionId);
        await mustExist(id, req.subscriptionId);
        const rows = await notifications.attempts(id, pageSize(req.limit), req.beforeAttemptId || undefined);
        return { attempts: rows.map(attemptMessage) };
      })
      .rpc(method.listNotifications, async (req) => {
        const id = subscriptionIdOf(req.subscriptionId);
        const state = stateFilter(req.state);
        await mustExist(id, req.subscriptionId);
        const rows = await notifications.list(id, state, pageSize(req.limit));
        return { notifications: rows.map(notificationMessage) };
      })
      .rpc(method.replayNotification, async (req) => {
        const found = await notifications.get(req.notificationId);
        if (!found) throw notificationNotFound(req.notificationId);
        const replayed = await notifications.replay(req.notificationId, clock.now());
        if (!replayed) throw notReplayable(req.notificationId, found.state);
        dispatcher.kick();
        return { notification: notificationMessage(replayed) };
      })
      .rpc(method.getMetrics, async () => {
        const depths = await notifications.pendingCounts();
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
      });
}
