import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { readFileSync } from "node:fs";
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
 * writes a V8 CPU profile there when it stops. `ipc`: with a message channel to the process.
 */
export async function startProcess(entry: string, env: NodeJS.ProcessEnv, readyUrl: string, options: { ipc?: boolean } = {}): Promise<ChildProcess> {
  const profile = process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const stdio = options.ipc ? ["ignore", "ignore", "inherit", "ipc"] : ["ignore", "ignore", "inherit"];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", entry], { cwd: join(import.meta.dirname, ".."), env, stdio: stdio as ("ignore" | "inherit" | "ipc")[] });
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

/** Stops a process of startProcess: SIGTERM, then SIGKILL after 10 s. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
