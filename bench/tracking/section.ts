import type { BenchSystem } from "../measure.js";

/** What a section gets: the running system and the load settings. */
export interface TrackingBench {
  sys: BenchSystem;
  concurrency: number;
  requests: number;
  seconds: number;
}

/** A section: its name and what it does, answering the lines it prints. */
export interface TrackingSection {
  name: string;
  run(bench: TrackingBench): Promise<string[]>;
}
