import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The service whose change (`ServiceStorage.change`) the current code runs inside, if any. A
 * transaction holds row locks until it ends, so no call to another service may be made while one is
 * open: the other service may be slow or down, and every lock waits for it (and a call back into this
 * service may wait for those locks). Read what another service knows before the change begins.
 */
export const insideTransaction = new AsyncLocalStorage<string>();

/** Throws when called inside a transaction: RPCs to other services go before or after a change. */
export function refuseInsideTransaction(what: string): void {
  const service = insideTransaction.getStore();
  if (service !== undefined) throw new Error(`${what} called inside a transaction of the ${service} service: ask before the change begins`);
}
