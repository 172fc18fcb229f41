import "../lib/runtime.js";
import * as http from "node:http";
import { readFileSync } from "node:fs";
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

/** Sends each list in order, all lists at once. */
export async function floorLoop(lists: FloorRequest[][]): Promise<FloorResult> {
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
  agent.destroy();
  return { seconds, latencies: latencies.sort((a, b) => a - b), cpuMs: (used.user + used.system) / 1000 };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const lists = JSON.parse(readFileSync(process.argv[2], "utf8")) as FloorRequest[][];
  process.stdout.write(JSON.stringify(await floorLoop(lists)));
}
