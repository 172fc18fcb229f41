import * as http from "node:http";
import * as https from "node:https";
import { isIP } from "node:net";
import { guardedLookup, isInternalAddress, type TargetRules } from "./target.js";

/** A receiver must answer within this time. */
export const DELIVERY_TIMEOUT_MS = 5_000;

export interface DeliveryResult {
  ok: boolean;
  status?: number;
  error?: string;
  latencyMs: number;
}

/**
 * POSTs one notification. Success is a 2xx within the timeout; a redirect, any other status,
 * a timeout or a connection error is a failure. Redirects are never followed.
 */
export function createDeliverer(rules: TargetRules, timeoutMs = DELIVERY_TIMEOUT_MS) {
  const lookup = guardedLookup(rules);
  const agents = {
    "http:": new http.Agent({ keepAlive: true, maxSockets: 4 }),
    "https:": new https.Agent({ keepAlive: true, maxSockets: 4 }),
  };
  const deliver = (url: string, body: string, headers: Record<string, string>): Promise<DeliveryResult> => {
    const started = performance.now();
    const done = (r: Omit<DeliveryResult, "latencyMs">): DeliveryResult => ({ ...r, latencyMs: Math.round(performance.now() - started) });
    return new Promise((resolve) => {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return resolve(done({ ok: false, error: "invalid URL" }));
      }
      const host = target.hostname.replace(/^\[|\]$/g, "");
      if (!rules.allowInternal && isIP(host) && isInternalAddress(host)) {
        return resolve(done({ ok: false, error: "refusing to connect to an internal address" }));
      }
      const mod = target.protocol === "https:" ? https : http;
      const req = mod.request(
        target,
        {
          method: "POST",
          agent: agents[target.protocol as "http:" | "https:"],
          lookup: lookup as never,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "user-agent": "workhub-webhooks/1", ...headers },
          timeout: timeoutMs,
        },
        (res) => {
          res.resume();
          const status = res.statusCode ?? 0;
          res.on("end", () => {});
          resolve(done(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: status >= 300 && status < 400 ? "redirect (not followed)" : `status ${status}` }));
        },
      );
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      req.on("close", () => clearTimeout(timer));
      req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on("error", (err) => resolve(done({ ok: false, error: err.message.slice(0, 500) })));
      req.end(body);
    });
  };
  return Object.assign(deliver, { close: () => Object.values(agents).forEach((a) => a.destroy()) });
}

export type Deliverer = ReturnType<typeof createDeliverer>;
