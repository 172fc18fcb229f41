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
  // prints both floors). Each subscription has at most one request in flight, so the limit of
  // connections per origin only matters when many subscriptions share a receiver. Its own
  // timeouts stay at their defaults: the deadline below is the one that counts.
  const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000, connect: { lookup: guardedLookup(options) } });
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
  const deliver = async (url: string, body: string, headers: Record<string, string>, opts: { readAnswer?: boolean } = {}): Promise<DeliveryResult> => {
    // Latency is real elapsed time (the monotonic clock), not business time: the injected clock
    // of a test does not move while a receiver answers.
    const started = performance.now();
    const done = (r: Omit<DeliveryResult, "latencyMs">): DeliveryResult => ({ ...r, latencyMs: Math.round(performance.now() - started) });
    let target: ReturnType<typeof parse>;
    try {
      target = parse(url);
    } catch {
      return done({ ok: false, error: "invalid URL" });
    }
    // Literal addresses are connected to without a lookup, so the URL itself is checked here.
    const refused = refusedUrl(target.target, options);
    if (refused) return done({ ok: false, error: REFUSALS[refused] });
    // The whole answer must come within the timeout, however the receiver trickles it.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    try {
      const res = await agent.request({
        origin: target.origin,
        path: target.path,
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "workhub-webhooks/1", ...headers },
        body,
        signal: deadline.signal,
      });
      const status = res.statusCode;
      const ok = status >= 200 && status < 300;
      if (!ok || !opts.readAnswer) {
        // The connection is reused once the answer's body is read (or dropped if it is large).
        res.body.dump().catch(() => undefined);
        if (ok) return done({ ok: true, status });
        return done({ ok: false, status, error: status >= 300 && status < 400 ? "redirect (not followed)" : `status ${status}` });
      }
      const answer = await readAnswer(res.body);
      if (deadline.signal.aborted) return done({ ok: false, error: `no answer within ${timeoutMs} ms` });
      return done({ ok: true, status, answer });
    } catch (err) {
      if (deadline.signal.aborted) return done({ ok: false, error: `no answer within ${timeoutMs} ms` });
      const e = err as NodeJS.ErrnoException;
      return done({ ok: false, error: (e.message || e.code || "connection failed").slice(0, 500) });
    } finally {
      clearTimeout(timer);
    }
  };
  return Object.assign(deliver, { close: () => void agent.destroy().catch(() => undefined) });
}

/** The first MAX_ANSWER_BYTES of an answer as text; the rest is read and dropped. A body cut short by the receiver is what arrived of it. */
async function readAnswer(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
      size += chunk.length;
    }
  } catch {
    // Cut short by the receiver, or by the deadline (the caller looks at that).
  }
  return Buffer.concat(chunks).toString("utf8").slice(0, MAX_ANSWER_BYTES);
}
