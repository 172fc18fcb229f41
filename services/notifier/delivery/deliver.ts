import { Agent, type Dispatcher } from "undici";
import { guardedLookup, refusedUrl, type TargetRules } from "./target.js";

/** A receiver must answer within this time. */
export const DELIVERY_TIMEOUT_MS = 5_000;

/** Why a connection is not even tried (see refusedUrl). */
const REFUSALS = {
  scheme: "URL must use http or https",
  port: "refusing to connect to a port other than 80 or 443",
  internal: "refusing to connect to an internal address",
} as const;

/** Callback URLs kept parsed (one per subscription delivered to). */
const PARSED_URLS = 10_000;

/** How much of an answer is read when it matters (a ping's validation code); the rest is ignored. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface DeliveryResult {
  ok: boolean;
  status?: number;
  error?: string;
  latencyMs: number;
  /** The answer's body, when asked for and the answer was a success. */
  answer?: string;
}

export interface DelivererOptions extends TargetRules {
  /** How long a receiver has to answer (DELIVERY_TIMEOUT_MS unless a test needs it shorter). */
  timeoutMs?: number;
}

export type Deliverer = ((url: string, body: string, headers: Record<string, string>, options?: { readAnswer?: boolean }) => Promise<DeliveryResult>) & {
  close(): void;
};

/**
 * POSTs one notification. Success is a 2xx answer within the timeout; a redirect, any other
 * status, a timeout or a connection error is a failure. Redirects are never followed. Under
 * the default rules only ports 80 and 443 and no refused address (target.ts) are ever
 * connected to: a literal one is checked here, a name's through the connection's own lookup.
 */
export function createDeliverer(options: DelivererOptions): Deliverer {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  // undici rather than node:http: the same POST costs about 25 µs less CPU (bench:webhooks
  // prints both floors), and its handler API answers without a stream or an AbortSignal per
  // request. Each subscription has at most one request in flight, so the limit of connections
  // per origin only matters when many subscriptions share a receiver. A connection that cannot
  // be made within the deadline is given up.
  const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000, connect: { lookup: guardedLookup(options), timeout: timeoutMs } });
  // A URL parsed once (one per subscription delivered to).
  const parsed = new Map<string, { target: URL; origin: string; path: string }>();
  const parse = (url: string) => {
    let kept = parsed.get(url);
    if (!kept) {
      const target = new URL(url);
      kept = { target, origin: target.origin, path: `${target.pathname}${target.search}` };
      // The oldest go first (a Map keeps insertion order).
      if (parsed.size >= PARSED_URLS) parsed.delete(parsed.keys().next().value!);
      parsed.set(url, kept);
    }
    return kept;
  };
  const deliver = (url: string, body: string, headers: Record<string, string>, opts: { readAnswer?: boolean } = {}): Promise<DeliveryResult> => {
    // Latency is real elapsed time (the monotonic clock), not business time: the injected clock
    // of a test does not move while a receiver answers.
    const started = performance.now();
    let target: ReturnType<typeof parse>;
    try {
      target = parse(url);
    } catch {
      return Promise.resolve(resultOf({ ok: false, error: "invalid URL" }, started));
    }
    // Literal addresses are connected to without a lookup, so the URL itself is checked here.
    const refused = refusedUrl(target.target, options);
    if (refused) return Promise.resolve(resultOf({ ok: false, error: REFUSALS[refused] }, started));
    return new Promise((resolve) => {
      const exchange = new Exchange(resolve, started, timeoutMs, opts.readAnswer === true);
      agent.dispatch({ origin: target.origin, path: target.path, method: "POST", headers: { "content-type": "application/json", "user-agent": "workhub-webhooks/1", ...headers }, body }, exchange);
    });
  };
  return Object.assign(deliver, { close: () => void agent.destroy().catch(() => undefined) });
}

function resultOf(r: Omit<DeliveryResult, "latencyMs">, started: number): DeliveryResult {
  return { ...r, latencyMs: Math.round(performance.now() - started) };
}

/**
 * One POST's exchange, as undici's dispatch handler. The whole exchange must end within the
 * timeout, however the receiver trickles its answer: a result known at the headers is settled
 * then, and the rest of the answer still has until the deadline before the connection is cut.
 * A request that waited for a connection past the deadline is not sent at all.
 */
class Exchange implements Dispatcher.DispatchHandlers {
  private settled = false;
  private late = false;
  private abort?: (err?: Error) => void;
  private readonly timer: NodeJS.Timeout;
  private status = 0;
  /** The answer's first MAX_ANSWER_BYTES when asked for; otherwise its bytes are counted and dropped. */
  private answer?: Buffer[];
  private size = 0;

  constructor(
    private readonly resolve: (result: DeliveryResult) => void,
    private readonly started: number,
    private readonly timeoutMs: number,
    private readonly readAnswer: boolean,
  ) {
    this.timer = setTimeout(() => this.deadline(), timeoutMs);
  }

  private deadline(): void {
    this.late = true;
    this.finish({ ok: false, error: `no answer within ${this.timeoutMs} ms` });
    this.abort?.();
  }

  private finish(r: Omit<DeliveryResult, "latencyMs">): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(resultOf(r, this.started));
  }

  private answered(): void {
    this.finish({ ok: true, status: this.status, answer: Buffer.concat(this.answer!).toString("utf8").slice(0, MAX_ANSWER_BYTES) });
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.late) abort();
    else this.abort = abort;
  }

  onHeaders(statusCode: number): boolean {
    this.status = statusCode;
    if (statusCode < 200 || statusCode >= 300) this.finish({ ok: false, status: statusCode, error: statusCode >= 300 && statusCode < 400 ? "redirect (not followed)" : `status ${statusCode}` });
    else if (this.readAnswer) this.answer = [];
    else this.finish({ ok: true, status: statusCode });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.answer && this.size < MAX_ANSWER_BYTES) this.answer.push(chunk);
    this.size += chunk.length;
    // A large answer nobody reads is not worth the connection.
    if (!this.answer && this.size > MAX_ANSWER_BYTES) this.abort?.();
    return true;
  }

  onComplete(): void {
    clearTimeout(this.timer);
    if (this.answer) this.answered();
  }

  onError(err: NodeJS.ErrnoException): void {
    clearTimeout(this.timer);
    // An answer cut short by the receiver is what arrived of it.
    if (this.answer) return this.answered();
    this.finish({ ok: false, error: (err.message || err.code || "connection failed").slice(0, 500) });
  }
}
