import type { Clock } from "../../lib/clock.js";
import type { Dispatcher } from "./delivery/dispatcher.js";
import type { DeliveryMetrics } from "./delivery/metrics.js";
import type { Pinger } from "./delivery/ping.js";
import type { TargetRules } from "./delivery/target.js";
import type { NotificationStore } from "./notifications/store.js";
import type { SubscriptionStore } from "./subscriptions/store.js";

/**
 * What the notifier's resources are built from: their stores (which write through the storage
 * kit), the clock, and the delivery parts the RPCs reach (the pinger, a wake-up of the dispatcher,
 * the delivery figures).
 */
export interface NotifierKit {
  clock: Clock;
  subscriptions: SubscriptionStore;
  notifications: NotificationStore;
  /** Where a subscription's URL may point (WEBHOOK_ALLOW_INTERNAL relaxes them). */
  targets: TargetRules;
  pinger: Pinger;
  /** Looks for due work now: a subscription was enabled, a notification replayed. */
  dispatcher: Pick<Dispatcher, "kick">;
  metrics: DeliveryMetrics;
}
