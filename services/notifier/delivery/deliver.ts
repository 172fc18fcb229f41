import { Agent } from "undici";
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
    const done = (r: Omit<DeliveryResult, "latencyMs">): DeliveryResult => ({ ...r, latencyMs: Math.round(performance.now() - started) });
    let target: ReturnType<typeof parse>;
    try {
      target = parse(url);
    } catch {
      return Promise.resolve(done({ ok: false, error: "invalid URL" }));
    }
    // Literal addresses are connected to without a lookup, so the URL itself is checked here.
    const refused = refusedUrl(target.target, options);
    if (refused) return Promise.resolve(done({ ok: false, error: REFUSALS[refused] }));
    return new Promise((resolve) => {
      let settled = false;
      const finish = (r: Omit<DeliveryResult, "latencyMs">) => {
        if (settled) return;
        settled = true;
        resolve(done(r));
      };
      // The whole exchange must end within the timeout, however the receiver trickles its
      // answer: a result known at the headers is settled then, and the rest of the answer still
      // has until the deadline before the connection is cut.
      let abort: ((err?: Error) => void) | undefined;
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        finish({ ok: false, error: `no answer within ${timeoutMs} ms` });
        abort?.();
      }, timeoutMs);
      let status = 0;
      // The answer's first MAX_ANSWER_BYTES when asked for; otherwise its bytes are counted and dropped.
      let answer: Buffer[] | undefined;
      let size = 0;
      const answered = () => finish({ ok: true, status, answer: Buffer.concat(answer!).toString("utf8").slice(0, MAX_ANSWER_BYTES) });
      agent.dispatch(
        { origin: target.origin, path: target.path, method: "POST", headers: { "content-type": "application/json", "user-agent": "workhub-webhooks/1", ...headers }, body },
        {
          // A request that waited for a connection past the deadline is not sent at all.
          onConnect: (a) => (late ? a() : (abort = a)),
          onHeaders: (statusCode) => {
            status = statusCode;
            if (status < 200 || status >= 300) finish({ ok: false, status, error: status >= 300 && status < 400 ? "redirect (not followed)" : `status ${status}` });
            else if (opts.readAnswer) answer = [];
            else finish({ ok: true, status });
            return true;
          },
          onData: (chunk) => {
            if (answer && size < MAX_ANSWER_BYTES) answer.push(chunk);
            size += chunk.length;
            // A large answer nobody reads is not worth the connection.
            if (!answer && size > MAX_ANSWER_BYTES) abort?.();
            return true;
          },
          onComplete: () => {
            clearTimeout(timer);
            if (answer) answered();
          },
          onError: (err: NodeJS.ErrnoException) => {
            clearTimeout(timer);
            // An answer cut short by the receiver is what arrived of it.
            if (answer) return answered();
            finish({ ok: false, error: (err.message || err.code || "connection failed").slice(0, 500) });
          },
        },
      );
    });
  };
  return Object.assign(deliver, { close: () => void agent.destroy().catch(() => undefined) });
}
