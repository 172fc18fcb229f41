import * as http from "node:http";
import * as https from "node:https";
import { urlToHttpOptions } from "node:url";
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
  const lookup = guardedLookup(options);
  // Each subscription has at most one request in flight, so the socket limit only matters when
  // many subscriptions share a receiver.
  const agents = {
    "http:": new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64, timeout: 60_000 }),
    "https:": new https.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64, timeout: 60_000 }),
  };
  // A URL parsed once, with its request options (http.request would convert the URL each time).
  const parsed = new Map<string, { target: URL; options: http.RequestOptions }>();
  const parse = (url: string) => {
    let kept = parsed.get(url);
    if (!kept) {
      const target = new URL(url);
      kept = { target, options: urlToHttpOptions(target) };
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
    return new Promise((resolve) => {
      let target: URL;
      let parts: http.RequestOptions;
      try {
        ({ target, options: parts } = parse(url));
      } catch {
        return resolve(done({ ok: false, error: "invalid URL" }));
      }
      // Literal addresses are connected to without a lookup, so the URL itself is checked here.
      const refused = refusedUrl(target, options);
      if (refused) return resolve(done({ ok: false, error: REFUSALS[refused] }));
      let settled = false;
      const finish = (r: Omit<DeliveryResult, "latencyMs">) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(done(r));
      };
      const mod = target.protocol === "https:" ? https : http;
      const req = mod.request(
        {
          ...parts,
          method: "POST",
          agent: agents[target.protocol as "http:" | "https:"],
          lookup: lookup as unknown as http.RequestOptions["lookup"],
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "user-agent": "workhub-webhooks/1", ...headers },
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          if (!ok) {
            res.resume();
            return finish({ ok: false, status, error: status >= 300 && status < 400 ? "redirect (not followed)" : `status ${status}` });
          }
          if (!opts.readAnswer) {
            res.resume();
            return finish({ ok: true, status });
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            if (size < MAX_ANSWER_BYTES) chunks.push(c);
            size += c.length;
          });
          res.on("end", () => finish({ ok: true, status, answer: Buffer.concat(chunks).toString("utf8").slice(0, MAX_ANSWER_BYTES) }));
          res.on("error", () => finish({ ok: true, status, answer: Buffer.concat(chunks).toString("utf8") }));
        },
      );
      // The whole answer must come within the timeout, however the receiver trickles it.
      const timer = setTimeout(() => {
        finish({ ok: false, error: `no answer within ${timeoutMs} ms` });
        req.destroy();
      }, timeoutMs);
      req.on("error", (err: NodeJS.ErrnoException) => finish({ ok: false, error: (err.message || err.code || "connection failed").slice(0, 500) }));
      req.end(body);
    });
  };
  return Object.assign(deliver, { close: () => Object.values(agents).forEach((a) => a.destroy()) });
}
