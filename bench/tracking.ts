import { log } from "./support.js";
import { rowBudget, startBenchSystem } from "./measure.js";
import type { TrackingSection } from "./tracking/section.js";
import { projectsSection } from "./tracking/projects.js";
import { timeEntriesSection } from "./tracking/time-entries.js";

/**
 * `npm run bench:tracking`: the time-tracking API's lists at scale. Starts the whole system once
 * (`cmd/start.ts`, embedded defaults, or MySQL + NATS with MYSQL_URL/NATS_URL) and runs each
 * section of bench/tracking/ on it, printing each section's figures to stdout.
 *
 * Environment (every section): BENCH_CONCURRENCY (8), BENCH_REQUESTS (1000 per row),
 * BENCH_SECONDS (15 per row at most), BENCH_ONLY (a section name: run that section only);
 * each section documents its own sizes.
 */

const SECTIONS: TrackingSection[] = [
  projectsSection,
  timeEntriesSection,
];

const bench = {
  concurrency: Number(process.env.BENCH_CONCURRENCY ?? 8),
  requests: Number(process.env.BENCH_REQUESTS ?? 1000),
  seconds: Number(process.env.BENCH_SECONDS ?? 15),
};
const only = process.env.BENCH_ONLY;

const sys = await startBenchSystem();
try {
  log(`tracking bench: ${sys.mode}, concurrency ${bench.concurrency}, ${rowBudget(bench.requests, bench.seconds)}`);
  for (const section of SECTIONS.filter((s) => !only || s.name === only)) {
    log(`section ${section.name}...`);
    const lines = await section.run({ sys, ...bench });
    process.stdout.write(`${lines.join("\n")}\n\n`);
  }
} finally {
  await sys.stop();
}
