import { Code, ConnectError } from "@connectrpc/connect";
import type { Client } from "@connectrpc/connect";
import type { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import { LeasedWork } from "../../../lib/background.js";
import type { Clock } from "../../../lib/clock.js";
import { isConflictVictim, isConnectionFailure } from "../../../lib/db.js";
import type { Directory } from "../../../lib/directory.js";
import type { Logger } from "../../../lib/logger.js";
import type { ServiceStorage } from "../../../lib/storage.js";
import { exportFailed, exportRequesterNotAdmin } from "../errors.js";
import type { MemberScope } from "../scope.js";
import { removeExportFile, writeArchive, type ArchiveEntry } from "./files.js";
import { exportReadyMail } from "./mail.js";
import { downloadPath, MAX_ATTEMPTS, retentionCutoff, type UserObject, type WorkspaceObject } from "./rules.js";
import { moveExport, staleExports, unfinishedExports, type ExportRow } from "./store.js";
import { userArchive } from "./user-archive.js";
import { workspaceArchive } from "./workspace-archive.js";

/** The row of `outbox_lease` that says which replica builds the exports. */
const LEASE = "exports";

export interface ExportWorkerDeps {
  clock: Clock;
  log: Logger;
  directory: Directory;
  identity: Client<typeof IdentityService>;
  /** The requester's scope in the exported workspace, resolved as for a call of theirs. */
  memberScope: MemberScope;
  /** PUBLIC_URL: the base of the link in the mail. */
  publicUrl: string;
  /** EXPORT_DIR. */
  dir: string;
  /** EXPORT_RETENTION_DAYS. */
  retentionDays: number;
}

/** How long a worker's lease holds after its last renewal, unless the options say otherwise. */
export const EXPORT_LEASE_MS = 2 * 60_000;

export interface ExportWorkerOptions {
  /** Milliseconds between passes when nothing kicks the worker (a request on another replica, the retention). */
  pollMs?: number;
  /** How long a dead worker's jobs wait before another replica takes them again. */
  leaseMs?: number;
}

/** Failures that pass: a peer service unavailable or slow, a database connection lost. */
const isTransient = (err: unknown) =>
  err instanceof ConnectError ? [Code.Unavailable, Code.DeadlineExceeded, Code.Aborted].includes(err.code) : isConnectionFailure(err) || isConflictVictim(err);

/** The worker lost its lease mid-job: another replica holds it and takes the job over. */
class LeaseLost extends Error {}
/** The worker is stopping mid-job: the job goes back to pending for whichever replica takes the lease next. */
class Stopping extends Error {}

/**
 * ExportWorker builds the requested exports one at a time, on one replica at a time (it holds the
 * `exports` lease, renewed between pages of entries). A job is marked running (and its attempt
 * counted) before it is built, so a job whose worker died is taken again once the lease has
 * expired; the ZIP is written under a temporary name and renamed when whole, so a job taken again
 * replaces its leftovers and a job never has two files. The change that marks a job done records
 * the requester's mail (the outbox mailer sends it after the commit). Each pass also deletes the
 * files of exports older than the retention and marks them expired.
 */
export class ExportWorker extends LeasedWork {
  constructor(
    private readonly storage: ServiceStorage,
    private readonly deps: ExportWorkerDeps,
    options: ExportWorkerOptions = {},
  ) {
    const leaseMs = options.leaseMs ?? EXPORT_LEASE_MS;
    // Renewed between pages a quarter of its time after the last renewal, not a write per page.
    super(storage.db, LEASE, deps.clock, deps.log, { pollMs: options.pollMs ?? 30_000, leaseMs, renewEveryMs: leaseMs / 4 });
  }

  protected async pass(): Promise<void> {
    await this.expire();
    for (const job of await unfinishedExports(this.storage.db)) {
      if (!(await this.stillHeld())) return;
      await this.build(job);
    }
  }

  /**
   * Between pages: a worker told to stop leaves the job in progress pending (another replica, or
   * this one started again, builds it), and one that lost the lease stops (the new holder builds
   * the job again).
   */
  private readonly checkpoint = async () => {
    if (this.stopRequested) throw new Stopping("the export worker is stopping");
    if (!(await this.stillHeld())) throw new LeaseLost("the exports lease was taken over");
  };

  private async build(job: ExportRow): Promise<void> {
    const { db } = this.storage;
    if (job.attempts >= MAX_ATTEMPTS) return this.fail(job, exportFailed().rawMessage);
    // Counted before the work: a job that kills its worker every time is failed, not taken forever.
    if (!(await moveExport(db, job, job.state, { state: "running", attempts: job.attempts + 1 }))) return;
    const running: ExportRow = { ...job, state: "running", attempts: job.attempts + 1 };
    try {
      const stored = await writeArchive(this.deps.dir, job.uuid, await this.entries(running), this.deps.clock.now());
      await this.finish(running, stored);
    } catch (err) {
      if (err instanceof LeaseLost) return;
      // Not the job's fault: it is not counted as an attempt.
      if (err instanceof Stopping) return void (await moveExport(db, running, "running", { state: "pending", attempts: job.attempts }));
      // A service or database that is away for a while: the job waits for the next pass (its attempt counted).
      if (isTransient(err)) {
        this.deps.log.warn({ err, export: job.uuid }, "exports: the export will be tried again");
        return void (await moveExport(db, running, "running", { state: "pending" }).catch(() => undefined));
      }
      // A refusal (the requester's access, a bad request) is the requester's to read; anything else is ours to log.
      if (!(err instanceof ConnectError)) this.deps.log.error({ err, export: job.uuid }, "exports: the export failed");
      await this.fail(running, err instanceof ConnectError ? err.rawMessage : exportFailed().rawMessage);
    }
  }

  /** The archive's files, asked for as the requester. */
  private async entries(job: ExportRow): Promise<ArchiveEntry[]> {
    const { db } = this.storage;
    const { directory, identity } = this.deps;
    if (job.kind === "user") return userArchive(db, directory, job.requester_id, job.objects as UserObject[], this.checkpoint);
    const scope = await this.deps.memberScope(job.requester_id, job.workspace_id!);
    if (!scope?.admin) throw exportRequesterNotAdmin();
    return workspaceArchive({ db, directory, identity }, scope, job.objects as WorkspaceObject[], this.checkpoint, this.deps.clock.now());
  }

  /** Marks the job done and records the requester's mail in the same change. */
  private async finish(job: ExportRow, stored: string): Promise<void> {
    const { publicUrl, retentionDays } = this.deps;
    const profile = await this.deps.identity.getUserProfile({ userId: job.requester_id });
    const link = `${publicUrl}${downloadPath(job.kind, job.uuid, job.workspace_id)}`;
    await this.storage.change(async (trx, _emit, mail) => {
      const done = await moveExport(trx, job, "running", { state: "done", file_path: stored, finished_at: this.deps.clock.now(), active_key: null, error_message: "" });
      if (done && profile.email) await mail(exportReadyMail({ to: profile.email, name: profile.fullname, job, link, retentionDays }));
    });
  }

  private async fail(job: ExportRow, message: string): Promise<void> {
    await removeExportFile(this.deps.dir, job.uuid);
    await moveExport(this.storage.db, job, job.state, { state: "failed", error_message: message.slice(0, 255), finished_at: this.deps.clock.now(), active_key: null, file_path: null });
  }

  /** Deletes the files of exports finished before the retention and marks them expired. */
  private async expire(): Promise<void> {
    const cutoff = retentionCutoff(this.deps.clock.now(), this.deps.retentionDays);
    for (const job of await staleExports(this.storage.db, cutoff)) {
      await removeExportFile(this.deps.dir, job.uuid);
      await moveExport(this.storage.db, job, "done", { state: "expired", file_path: null });
    }
  }
}

