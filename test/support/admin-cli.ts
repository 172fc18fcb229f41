import { execFile } from "node:child_process";
import { join } from "node:path";
import type { TestSystem } from "./harness.js";

const ROOT = join(import.meta.dirname, "../..");

export interface AdminRun {
  /** The exit code: 0, 1 (the system refused) or 2 (a usage error). */
  code: number;
  /** stdout parsed as JSON, or undefined. */
  json: any;
  stdout: string;
  stderr: string;
}

/**
 * Runs the admin command line in its own process, as an operator would, against a running test
 * system: the services' URLs, the data directory and the internal token that system has.
 */
export function runAdminCli(sys: TestSystem, ...args: string[]): Promise<AdminRun> {
  const url = (port: number | undefined) => `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    DATA_DIR: sys.env.DATA_DIR,
    INTERNAL_TOKEN: sys.config.internalToken,
    HIRING_URL: url(sys.ports.hiring),
    ACCOUNTS_URL: url(sys.ports.accounts),
    TRACKING_URL: url(sys.ports.tracking),
    NOTIFIER_URL: url(sys.ports.notifier),
  };
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", "cmd/admin.ts", ...args], { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, json, stdout, stderr });
    });
  });
}
