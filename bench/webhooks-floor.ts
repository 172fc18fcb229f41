import "../lib/runtime.js";
import * as http from "node:http";
import { readFileSync } from "node:fs";
import { Agent } from "undici";
import { pathToFileURL } from "node:url";

/**
 * The floor of `npm run bench:webhooks`: the backlog's deliveries POSTed again by a bare Node.js
 * loop, one at a time per subscription (as the notifier delivers) and every subscription at once,
 * through a keep-alive agent like the notifier's; nothing is read, signed or stored. Run inside
 * the bench (beside the receivers: no round trip crosses processes) or as a process of its own
 * (`tsx bench/webhooks-floor.ts <file of FloorRequest[][]>`, printing its FloorResult as JSON:
 * a sender in another process than the receivers, as the notifier is).
 */

/** One POST as it arrived at a receiver: where, what, with which headers. */
export interface FloorRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface FloorResult {
  seconds: number;
  /** Round trips, sorted (ms). */
  latencies: number[];
  /** CPU ms of the process doing it. */
  cpuMs: number;
}

/** The HTTP clients a floor can send with: Node's own, or undici's (the notifier's). */
export type FloorClient = "node:http" | "undici";

/** A POST that resolves once its answer is read, by Node's http module through a keep-alive agent. */
function nodeHttpSender(): { send: (r: FloorRequest) => Promise<void>; close: () => void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64, timeout: 60_000 });
  const send = (r: FloorRequest) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(r.url, { method: "POST", agent, headers: { ...r.headers, "content-length": Buffer.byteLength(r.body) } }, (res) => {
        res.resume();
        res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
      });
      req.on("error", reject);
      req.end(r.body);
    });
  return { send, close: () => agent.destroy() };
}

/** The same by undici's handler API, as the notifier sends (no stream, no promise per answer inside undici). */
function undiciSender(): { send: (r: FloorRequest) => Promise<void>; close: () => void } {
  const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000 });
  const urls = new Map<string, URL>();
  const send = (r: FloorRequest) =>
    new Promise<void>((resolve, reject) => {
      const url = urls.get(r.url) ?? urls.set(r.url, new URL(r.url)).get(r.url)!;
      let status = 0;
      agent.dispatch(
        { origin: url.origin, path: url.pathname, method: "POST", headers: r.headers, body: r.body },
        {
          onConnect: () => undefined,
          onHeaders: (statusCode) => ((status = statusCode), true),
          onData: () => true,
          onComplete: () => (status === 200 ? resolve() : reject(new Error(`status ${status}`))),
          onError: reject,
        },
      );
    });
  return { send, close: () => void agent.destroy() };
}

/** Sends each list in order, all lists at once. */
export async function floorLoop(lists: FloorRequest[][], client: FloorClient = "node:http"): Promise<FloorResult> {
  const { send, close } = client === "undici" ? undiciSender() : nodeHttpSender();
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    lists.map(async (list) => {
      for (const r of list) {
        const t0 = performance.now();
        await send(r);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  close();
  return { seconds, latencies: latencies.sort((a, b) => a - b), cpuMs: (used.user + used.system) / 1000 };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const lists = JSON.parse(readFileSync(process.argv[2], "utf8")) as FloorRequest[][];
  process.stdout.write(JSON.stringify(await floorLoop(lists, (process.argv[3] as FloorClient | undefined) ?? "node:http")));
}
