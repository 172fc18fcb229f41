import type { Clock } from "../../../lib/clock.js";
import type { Logger } from "../../../lib/logger.js";
import { randomToken } from "../../../lib/ids.js";
import type { Deliverer } from "./deliver.js";
import { pingPayload } from "./payloads.js";
import { signatureHeaders } from "./signing.js";
import type { NotificationStore } from "../notifications/store.js";
import type { SubscriptionRow, SubscriptionStore } from "../subscriptions/store.js";

export interface PingOutcome {
  /** "OK", or what went wrong. */
  status: string;
}

/** The validation code the receiver echoed in its answer, if any. */
function echoedCode(answer: string | undefined): string | undefined {
  if (!answer) return undefined;
  try {
    const parsed: unknown = JSON.parse(answer);
    if (typeof parsed === "object" && parsed !== null && "validation_code" in parsed) {
      const code = (parsed as { validation_code: unknown }).validation_code;
      return typeof code === "string" ? code : undefined;
    }
  } catch {
    // Not JSON: no echo.
  }
  return undefined;
}

/**
 * Pinger sends the PING of the time-tracking API: on demand, and by itself after a subscription
 * is made or its URL changed (the validation request). It is no notification: it bypasses the
 * queue (a ping is no event, and reaches unvalidated and disabled subscriptions too), is tried
 * once, and is recorded in the delivery log. It carries the validation code the subscription
 * row holds in clear, which only a row that just issued one does (see SubscriptionRow).
 */
export class Pinger {
  private readonly background = new Set<Promise<unknown>>();

  constructor(
    private readonly subscriptions: SubscriptionStore,
    private readonly notifications: NotificationStore,
    private readonly deliver: Deliverer,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  async ping(sub: SubscriptionRow, validationUrl?: string): Promise<PingOutcome> {
    const now = this.clock.now();
    const body = JSON.stringify(pingPayload(sub, now, validationUrl));
    const id = `ping_${randomToken(12)}`;
    const result = await this.deliver(sub.url, body, signatureHeaders(sub.secret, id, Math.floor(now.getTime() / 1000), body), { readAnswer: true });
    // A receiver that echoes the validation code this ping carried validates the subscription
    // (the store compares it with the hash it keeps).
    const code = echoedCode(result.answer);
    if (result.ok && !sub.validated_at && sub.validation_code && code !== undefined) {
      await this.subscriptions.validate(sub.id, code, this.clock.now());
    }
    await this.notifications.recordPing(sub.id, this.clock.now(), result);
    return { status: result.ok ? "OK" : `Failed: ${result.error ?? `status ${result.status}`}` };
  }

  /** Sends the validation request without making the caller wait. */
  pingLater(sub: SubscriptionRow, validationUrl?: string): void {
    const run = this.ping(sub, validationUrl).catch((err) => this.log.warn({ err, subscription: sub.id }, "notifier: validation request failed"));
    this.background.add(run);
    void run.finally(() => this.background.delete(run));
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.background]);
  }
}
