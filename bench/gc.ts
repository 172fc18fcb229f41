import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tableLine } from "./measure.js";
import { summarizeGcTrace } from "./support.js";

/**
 * `npm run bench:gc -- <dir>`: what the garbage collector did in each process a bench ran with
 * BENCH_GC_TRACE=<dir> (bench/support.ts startProcess), from V8's `--trace-gc-nvp` lines: the
 * young collections (scavenges: how many, their pauses, what each found alive and moved to the
 * old generation) and the full ones (mark-compact). A server whose requests leave nothing
 * behind has young collections of well under a millisecond that keep and promote a few KiB.
 */

const dir = process.argv[2];
if (!dir) {
  process.stderr.write("usage: npm run bench:gc -- <the directory of BENCH_GC_TRACE>\n");
  process.exit(2);
}
const kib = (bytes: number, n: number) => (n ? bytes / n / 1024 : 0).toFixed(0);
const lines = [
  tableLine(["process", "young collections", "mean pause ms", "KiB allocated between", "KiB survived each", "KiB promoted each", "full collections", "their pause ms"]),
  tableLine(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]),
];
for (const file of readdirSync(dir).filter((f) => f.endsWith(".log")).sort()) {
  const s = summarizeGcTrace(readFileSync(join(dir, file), "utf8"));
  lines.push(tableLine([file, String(s.young), (s.young ? s.youngPauseMs / s.young : 0).toFixed(2), kib(s.allocatedBytes, s.young), kib(s.survivedBytes, s.young), kib(s.promotedBytes, s.young), String(s.full), s.fullPauseMs.toFixed(0)]));
}
process.stdout.write(`${lines.join("\n")}\n`);
