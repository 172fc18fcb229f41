import { AsyncLocalStorage } from "node:async_hooks";

/**
 * No call to another service while a transaction is open. A transaction holds row locks until it
 * ends: the other service may be slow or down, and every lock waits for it (and a call back into
 * this service may wait for those locks). Read what another service knows before the change begins.
 *
 * Checked where `TRANSACTION_CHECKS=1` (`npm test` sets it): each change (`ServiceStorage.change`)
 * is marked, and a peer RPC made inside one throws, so the first test that reaches one fails. Off
 * otherwise: on Node.js 20 an AsyncLocalStorage in use costs every promise of the process a hook
 * (measured: about a fifth more CPU on a project list through the gateway).
 */
const checked = process.env.TRANSACTION_CHECKS === "1";
const insideTransaction = checked ? new AsyncLocalStorage<string>() : undefined;

/** Runs a transaction's work marked as inside a transaction of the service (when checked). */
export function withinTransaction<T>(service: string, work: () => T): T {
  return insideTransaction ? insideTransaction.run(service, work) : work();
}

/** Throws when called inside a transaction (when checked): RPCs to other services go before or after a change. */
export function refuseInsideTransaction(what: string): void {
  const service = insideTransaction?.getStore();
  if (service !== undefined) throw new Error(`${what} called inside a transaction of the ${service} service: ask before the change begins`);
}
