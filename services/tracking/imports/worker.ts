import { setImmediate } from "node:timers/promises";
import { ConnectError, type Client } from "@connectrpc/connect";
import type { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import type { InvitationService } from "../../../gen/accounts/v1/invitations_pb.js";
import type { GroupService } from "../../../gen/accounts/v1/groups_pb.js";
import { LeasedWork } from "../../../lib/background.js";
import { chunks } from "../../../lib/chunks.js";
import type { Clock } from "../../../lib/clock.js";
import type { Knex } from "../../../lib/db.js";
import { HEADER } from "../../../lib/identity.js";
import type { Logger } from "../../../lib/logger.js";
import type { ServiceStorage } from "../../../lib/storage.js";
import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import { importNoAdmin } from "../errors.js";
import type { MemberScope } from "../scope.js";
import { writeCatalog, writeEntries, type ImportTarget } from "./apply.js";
import { nameKey, type ImportedEntry } from "./rules.js";
import { contentOf, readImport, type ImportContent } from "./sources.js";
import { COUNTED, deleteParts, emptyCounts, importJobs, invitedAlready, nextRunnableJob, recordInvited, uploadedFiles, type ImportCounts, type ImportJobRow } from "./store.js";
import { importFinishedEvent } from "./view.js";

/** The row of `outbox_lease` that says which replica runs the imports. */
const LEASE = "imports";
/** Entries written in one transaction (with the job's progress). */
export const ENTRY_BATCH = 1000;
/** The most addresses one invitation call takes (its declared `max_items`). */
const INVITE_BATCH = 100;

export interface ImportWorkerOptions {
  pollMs?: number;
  leaseMs?: number;
  batch?: number;
  /** Tests: runs after each batch of entries commits (a throw there is a crash mid-import). */
  afterBatch?: (job: ImportJobRow, batches: number) => void;
}

export interface ImportPeers {
  identity: Client<typeof IdentityService>;
  invitations: Client<typeof InvitationService>;
  groups: Client<typeof GroupService>;
  memberScope: MemberScope;
}

/** Counts added up (a batch's to the job's). */
function added(a: ImportCounts, b: ImportCounts): ImportCounts {
  const out = emptyCounts();
  for (const part of ["created", "matched", "skipped"] as const) for (const kind of COUNTED) out[part][kind] = a[part][kind] + b[part][kind];
  return out;
}

/** The workspace's members by address (active or not: an inactive member's history is still theirs). */
export async function membersOf(identity: Client<typeof IdentityService>, workspaceId: bigint): Promise<Map<string, bigint>> {
  const { members } = await identity.listWorkspaceMembers({ workspaceId });
  return new Map(members.map((m) => [m.email.toLowerCase(), m.userId]));
}

/**
 * Runs imports: checks a job's files (`check`), runs a dry run at once (`dryRun`), and writes the
 * queued jobs one at a time, on one replica at a time (it holds the `imports` lease), each in
 * batches that commit with the job's progress: a crash leaves the job `running` with what it has
 * gone through, and the next pass (here or on another replica, once the lease lapses) resumes it
 * from there. What a resumed batch would write twice is matched instead (the same names, the same
 * entries), so nothing is duplicated either way.
 */
export class ImportWorker extends LeasedWork {
  private readonly batch: number;

  constructor(
    private readonly storage: ServiceStorage,
    private readonly peers: ImportPeers,
    private readonly deps: { clock: Clock; log: Logger },
    private readonly options: ImportWorkerOptions = {},
  ) {
    super(storage.db, LEASE, deps.clock, deps.log, { pollMs: options.pollMs ?? 5_000, leaseMs: options.leaseMs ?? 60_000 });
    this.batch = options.batch ?? ENTRY_BATCH;
  }

  /** Reads the job's files whole: what they name, or the refusal that names the fault. */
  check(job: ImportJobRow): Promise<ImportContent> {
    return readImport(uploadedFiles(this.storage.db, job), job.time_zone);
  }

  /** Goes through the job as the writing run would, writing nothing; answers the job finished with what it would have done. */
  async dryRun(job: ImportJobRow, scope: WorkspaceScope, content: ImportContent): Promise<ImportJobRow> {
    const counts = await this.work(job, scope, content, false);
    return this.finish(job, counts, [], false);
  }

  protected async pass(): Promise<void> {
    for (let job = await nextRunnableJob(this.storage.db); job; job = await nextRunnableJob(this.storage.db)) {
      if (!(await this.runJob(job)) || !(await this.stillHeld())) return;
    }
  }

  /** Runs (or resumes) one job; false when it stopped on a fault it may get over (the job stays to be resumed). */
  private async runJob(job: ImportJobRow): Promise<boolean> {
    const scope = await this.peers.memberScope(job.user_id, job.workspace_id);
    try {
      if (!scope?.admin) throw importNoAdmin();
      if (job.state === "queued") job = await this.save(job, { state: "running" });
      // What the check of the upload read (the files are read once more, for their entries).
      const content = job.content ? contentOf(job.content) : await this.check(job);
      const invited = await this.invite(job, scope, content);
      const counts = await this.work(job, scope, content, true, invited);
      await this.finish(job, counts, invited, true);
      return true;
    } catch (err) {
      if (err instanceof ConnectError) {
        // A refusal is final: the job fails with its message.
        await this.save(job, { state: "failed", error: err.rawMessage, content: null, finished_at: this.deps.clock.now() });
        await deleteParts(this.storage.db, job.id);
        return true;
      }
      this.deps.log.error({ err, importId: job.id }, "import stopped; it resumes on a later pass");
      return false;
    }
  }

  private async save(job: ImportJobRow, changes: Partial<ImportJobRow>): Promise<ImportJobRow> {
    return this.storage.change(async (trx) => importJobs.update(trx, job, { ...changes, at: this.deps.clock.now() }));
  }

  /**
   * Invites the people of the files who are no members into the organization (and this
   * workspace), once per workspace whatever the number of imports: as the importing admin, whose
   * organization rights the accounts service checks. An invitation refused (no organization
   * rights, no seat left) leaves the address uninvited; its entries are imported all the same.
   */
  private async invite(job: ImportJobRow, scope: WorkspaceScope, content: ImportContent): Promise<string[]> {
    const members = await membersOf(this.peers.identity, scope.workspaceId);
    const outside = [...content.people.keys()].filter((e) => !members.has(e));
    const already = await invitedAlready(this.storage.db, job.workspace_id, outside);
    const wanted = outside.filter((e) => !already.has(e));
    const invited: string[] = [];
    for (const emails of chunks(wanted, INVITE_BATCH)) {
      try {
        await this.peers.invitations.createInvitations(
          { organizationId: scope.organizationId, emails, workspaces: [{ workspaceId: scope.workspaceId, admin: false, role: "user" }] },
          { headers: { [HEADER.userId]: String(scope.userId) } },
        );
        await recordInvited(this.storage.db, job.workspace_id, emails, this.deps.clock.now());
        invited.push(...emails);
      } catch (err) {
        if (!(err instanceof ConnectError)) throw err;
        this.deps.log.warn({ err, importId: job.id }, "import: invitations refused");
      }
    }
    return [...job.invited, ...invited.filter((e) => !job.invited.includes(e))];
  }

  /**
   * The organization's groups visible in the workspace by name, with those the files name and it
   * lacks created first (with the members the files give them who are members here; a group there
   * already keeps its own) (as the importing admin, whose organization rights the accounts service
   * checks; a resumed job finds them by name). A dry run answers stand-ins; a refused creation
   * leaves the group out (its projects get no group).
   */
  private async groupsOf(job: ImportJobRow, scope: WorkspaceScope, content: ImportContent, write: boolean, members: Map<string, bigint>): Promise<Map<string, bigint>> {
    const as = { headers: { [HEADER.userId]: String(scope.userId) } };
    const out = new Map<string, bigint>();
    if (content.groups.size === 0) return out;
    for (const g of (await this.peers.groups.listWorkspaceGroups({ workspaceId: scope.workspaceId }, as)).groups) if (!out.has(nameKey(g.name))) out.set(nameKey(g.name), g.id);
    let standIn = 0n;
    for (const [key, group] of content.groups) {
      if (out.has(key)) continue;
      if (!write) {
        out.set(key, --standIn);
        continue;
      }
      try {
        const users = group.members.flatMap((email) => (members.has(email) ? [members.get(email)!] : []));
        const created = await this.peers.groups.createGroup({ organizationId: scope.organizationId, name: group.name, users, workspaces: [scope.workspaceId] }, as);
        out.set(key, created.group!.groupId);
      } catch (err) {
        if (!(err instanceof ConnectError)) throw err;
        this.deps.log.warn({ err, importId: job.id, group: group.name }, "import: group refused");
      }
    }
    return out;
  }

  /**
   * Reads the files again and writes (or, `write` false, only counts): the catalog first, then the
   * entries in batches, skipping the ones a previous run of the job went through.
   */
  private async work(job: ImportJobRow, scope: WorkspaceScope, content: ImportContent, write: boolean, invited: string[] = []): Promise<ImportCounts> {
    const db = this.storage.db;
    const members = await membersOf(this.peers.identity, scope.workspaceId);
    const groups = await this.groupsOf(job, scope, content, write, members);
    const target: ImportTarget = { scope, members, groups, write, now: this.deps.clock.now() };
    let counts = job.counts;
    // The catalog's counts are those of the job's first run (a resumed run matches what it made).
    if (job.entries_done === 0 || !write) {
      const fresh = emptyCounts();
      // People: members matched; the others invited by this import (a dry run: who it would invite) or, invited before, skipped.
      const outside = [...content.people.keys()].filter((e) => !members.has(e));
      const before = write ? new Set(outside.filter((e) => !invited.includes(e))) : await invitedAlready(db, job.workspace_id, outside);
      fresh.matched.users = content.people.size - outside.length;
      for (const email of outside) fresh[before.has(email) ? "skipped" : "created"].users++;
      const catalog = (trx: Knex) => writeCatalog(trx, target, content, fresh);
      if (write) {
        counts = await this.storage.change(async (trx) => {
          await catalog(trx);
          await importJobs.update(trx, job, { counts: fresh, entries_total: content.entries, invited, at: target.now });
          return fresh;
        });
      } else {
        await catalog(db);
        counts = fresh;
      }
    }
    // The ids of what the catalog holds now (matching only: everything is there).
    const ids = await writeCatalog(db, { ...target, write: false }, content, emptyCounts());
    let done = job.entries_done;
    let seen = 0;
    let batches = 0;
    let batch: ImportedEntry[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const entries = batch;
      batch = [];
      if (!write) {
        await writeEntries(db, target, ids, entries, counts);
        return;
      }
      counts = await this.storage.change(async (trx) => {
        const local = emptyCounts();
        await writeEntries(trx, target, ids, entries, local);
        const total = added(counts, local);
        await importJobs.update(trx, job, { entries_done: done + entries.length, counts: total, at: this.deps.clock.now() });
        return total;
      });
      done += entries.length;
      batches++;
      this.options.afterBatch?.(job, batches);
      // Other work of this replica between batches: requests, other workspaces' events (on SQLite
      // each query holds the event loop, so a job that never yields would hold every answer).
      await setImmediate();
      // Another replica took the work over (this one stalled past the lease): it resumes the job.
      if (!(await this.stillHeld())) throw new Error("import: the lease lapsed");
    };
    await readImport(uploadedFiles(db, job), job.time_zone, async (entry) => {
      seen++;
      if (write && seen <= job.entries_done) return;
      batch.push(entry);
      if (batch.length >= this.batch) await flush();
    });
    await flush();
    job.entries_done = done;
    return counts;
  }

  /** The job finished: its counts, its one event (a writing run), its uploaded bytes dropped. */
  private async finish(job: ImportJobRow, counts: ImportCounts, invited: string[], write: boolean): Promise<ImportJobRow> {
    const now = this.deps.clock.now();
    const done = await this.storage.change(async (trx, emit) => {
      const row = await importJobs.update(trx, job, { state: "finished", counts, invited, content: null, entries_done: write ? job.entries_done : job.entries_total, error: null, at: now, finished_at: now });
      if (write) await emit(importFinishedEvent(row));
      return row;
    });
    await deleteParts(this.storage.db, job.id);
    return done;
  }
}
