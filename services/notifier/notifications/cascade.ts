import type { Knex } from "../../../lib/db.js";

/**
 * What goes with a subscription that is deleted: its queue (every notification, whatever its
 * state) and its delivery log. Runs in the transaction that deletes the subscription.
 */
export async function removeQueueAndLog(trx: Knex.Transaction, subscriptionId: bigint): Promise<void> {
  await trx("notifications").where({ subscription_id: subscriptionId }).delete();
  await trx("delivery_attempts").where({ subscription_id: subscriptionId }).delete();
}
