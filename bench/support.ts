import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { create } from "@bufbuild/protobuf";
import { ListCandidatesRequestSchema } from "../gen/hiring/v1/export_pb.js";
import { candidateQuery, type CandidateQuery } from "../services/hiring/candidates/query.js";

/** Progress and notes go to stderr, so stdout holds only the figures. */
export function log(line: string): void {
  process.stderr.write(`${line}\n`);
}


/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux), or undefined
 * where there is no /proc.
 */
export function cpuMs(pid: number): number | undefined {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** Resident memory of a process in MiB, from /proc (Linux), or undefined. */
export function rssMiB(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS = 100;

/** A candidate list query from the REST parameters the hiring bench uses. */
export function benchListQuery(params: Record<string, string | undefined>): CandidateQuery {
  return candidateQuery(
    create(ListCandidatesRequestSchema, {
      jobOpeningId: params.job_opening_id,
      hireState: params.hire_state,
      minScore: params.min_score === undefined ? undefined : Number(params.min_score),
      order: params.order,
      afterId: params.after_id,
      tagIds: params.tag_ids?.split(",") ?? [],
      limit: params.limit === undefined ? undefined : Number(params.limit),
    }),
  );
}

/**
 * Runs a TypeScript entry point of this repository (`cmd/start.ts`, a bench server) in its own
 * Node.js process and resolves once `readyUrl` answers 2xx. BENCH_PROFILE=<dir>: the process
 * writes a V8 CPU profile there when it stops. `gcTraceDir` (BENCH_GC_TRACE=<dir> by default): the
 * process traces each garbage collection (`--trace-gc-nvp`) into gcTraceFile(dir, entry), which
 * `npm run bench:gc -- <dir>` sums up. `ipc`: with a message channel to the process.
 */
export async function startProcess(entry: string, env: NodeJS.ProcessEnv, readyUrl: string, options: { ipc?: boolean; gcTraceDir?: string } = {}): Promise<ChildProcess> {
  const profile = profileArgs();
  const traceDir = options.gcTraceDir ?? process.env.BENCH_GC_TRACE;
  const gcTrace = traceDir ? ["--trace-gc-nvp"] : [];
  // The trace is the process's standard output, which is otherwise not read.
  if (traceDir) mkdirSync(traceDir, { recursive: true });
  const out = traceDir ? openSync(gcTraceFile(traceDir, entry), "w") : "ignore";
  const stdio = options.ipc ? ["ignore", out, "inherit", "ipc"] : ["ignore", out, "inherit"];
  const child = spawn(process.execPath, [...profile, ...gcTrace, "--import", "tsx", entry], { cwd: join(import.meta.dirname, ".."), env, stdio: stdio as ("ignore" | "inherit" | "ipc")[] });
  if (typeof out === "number") closeSync(out);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}`);
    const ok = await fetch(readyUrl).then((r) => r.ok, () => false);
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`${entry} did not become ready`);
}

/** Node's flags that write a CPU profile of the process into BENCH_PROFILE, when it is set. */
export const profileArgs = (): string[] => (process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []);

/** Stops a process of startProcess: SIGTERM, then SIGKILL after 10 s. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

/** Where startProcess writes the garbage collections of `entry` run with a trace directory. */
export const gcTraceFile = (dir: string, entry: string) => join(dir, `${entry.replace(/[/.]/g, "_")}.log`);

/** What V8's `--trace-gc-nvp` lines of one process tell (bench/gc.ts). */
export interface GcSummary {
  young: number;
  youngPauseMs: number;
  survivedBytes: number;
  promotedBytes: number;
  allocatedBytes: number;
  full: number;
  fullPauseMs: number;
}

/** The `--trace-gc-nvp` fields read, each `name=<number>`. */
const GC_FIELDS = {
  pause: /\bpause=([\d.]+)/,
  new_space_survived: /\bnew_space_survived=(\d+)/,
  promoted: /\bpromoted=(\d+)/,
  allocated: /\ballocated=(\d+)/,
};

/** The figures of one process's trace. */
export function summarizeGcTrace(text: string): GcSummary {
  const s: GcSummary = { young: 0, youngPauseMs: 0, survivedBytes: 0, promotedBytes: 0, allocatedBytes: 0, full: 0, fullPauseMs: 0 };
  for (const line of text.split("\n")) {
    const kind = /\bgc=(\w+)/.exec(line)?.[1];
    if (!kind) continue;
    const field = (name: keyof typeof GC_FIELDS) => Number(GC_FIELDS[name].exec(line)?.[1] ?? 0);
    if (kind === "s") {
      s.young++;
      s.youngPauseMs += field("pause");
      s.survivedBytes += field("new_space_survived");
      s.promotedBytes += field("promoted");
      s.allocatedBytes += field("allocated");
    } else if (kind === "mc") {
      s.full++;
      s.fullPauseMs += field("pause");
    }
  }
  return s;
}
