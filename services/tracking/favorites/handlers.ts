import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { FavoriteService, type FavoritePayload } from "../../../gen/tracking/v1/favorites_pb.js";
import type { Knex } from "../../../lib/db.js";
import { findableId, idBinding } from "../../../lib/ids.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { canSee } from "../projects/access.js";
import { projects } from "../projects/store.js";
import { type TrackingScope, trackingUserScope } from "../scope.js";
import { liveTags } from "../tags/store.js";
import { tasks } from "../tasks/store.js";
import { timeEntries, userEntries } from "../time-entries/store.js";
import { favoriteConstraintsUnmet, favoriteIdInvalid, favoriteNotOwned, favoriteParameterInvalid, favoriteResourcesDenied } from "../errors.js";
import { changedAttributes, favoriteAttributes, suggestedPatterns, SUGGESTED_FAVORITES, SUGGESTION_DAYS, type EntryPattern, type FavoriteAttributes } from "./rules.js";
import { everHadFavorite, favorites, nextRank, type FavoriteRow } from "./store.js";
import { favoriteMessage } from "./view.js";

const DAY_MS = 86_400_000;
/** The recent entries a suggestion reads at most. */
const SUGGESTION_ENTRIES = 1000;

const attributesOf = (row: FavoriteRow): FavoriteAttributes => ({
  workspaceId: row.workspace_id,
  description: row.description,
  projectId: row.project_id,
  taskId: row.task_id,
  billable: row.billable,
  tagIds: row.tag_ids,
});

const columnsOf = (a: FavoriteAttributes) => ({
  workspace_id: a.workspaceId,
  description: a.description,
  project_id: a.projectId,
  task_id: a.taskId,
  billable: a.billable,
  tag_ids: a.tagIds,
});

/**
 * The caller's favorites. Each lives in one of the caller's workspaces and refers only to what
 * the caller sees there: a project they may see (403 otherwise, as the reference answers for
 * resources the user has no access to), a task of that project, tags of that workspace (400: the
 * attributes do not relate).
 */
export function favoriteHandlers({ storage, clock }: ResourceKit) {
  const { db } = storage;

  async function scopes(ctx: HandlerContext): Promise<Map<bigint, TrackingScope>> {
    return new Map((await trackingUserScope(ctx).workspaces()).map((s) => [s.workspaceId, s]));
  }

  /** The attributes checked against the workspace (a task alone names its project). */
  async function checked(userId: bigint, all: Map<bigint, TrackingScope>, a: FavoriteAttributes): Promise<{ attributes: FavoriteAttributes; scope: TrackingScope }> {
    const scope = all.get(a.workspaceId);
    if (!scope) throw favoriteResourcesDenied(userId, `workspace ${a.workspaceId}`);
    const out = { ...a };
    if (out.taskId !== null) {
      const task = await tasks.getLive(db, scope.workspaceId, out.taskId);
      if (!task) throw favoriteResourcesDenied(userId, `task ${out.taskId}`);
      if (out.projectId === null) out.projectId = task.project_id;
      else if (task.project_id !== out.projectId) throw favoriteConstraintsUnmet(`task ${out.taskId} does not belong to project ${out.projectId}`);
    }
    if (out.projectId !== null) {
      const project = await projects.getLive(db, scope.workspaceId, out.projectId);
      if (!project || !(await canSee(db, scope.viewer, project))) throw favoriteResourcesDenied(userId, `project ${out.projectId}`);
    }
    if (out.tagIds.length > 0) {
      const found = new Set((await liveTags(db, scope.workspaceId, out.tagIds)).map((t) => t.id));
      const foreign = out.tagIds.filter((id) => !found.has(id));
      if (foreign.length > 0) throw favoriteConstraintsUnmet(`tags ${foreign.join(", ")} do not belong to workspace ${a.workspaceId}`);
    }
    return { attributes: out, scope };
  }

  /** The caller's favorite `id` for a change: 400 when missing or deleted, 403 when another user's. */
  async function owned(trx: Knex.Transaction, userId: bigint, id: bigint, missing: () => Error): Promise<FavoriteRow> {
    const raw = await trx(favorites.table).where("id", idBinding(findableId(id))).first();
    if (!raw) throw missing();
    const row = favorites.read(raw);
    if (row.user_id !== userId) throw favoriteNotOwned(userId, id);
    const locked = await favorites.getForChange(trx, row.user_id, id);
    if (!locked || locked.deleted_at !== null) throw missing();
    return locked;
  }

  /** The user's recent stopped entries in their workspaces, as suggestion material. */
  async function recentEntries(userId: bigint, workspaces: bigint[]): Promise<EntryPattern[]> {
    if (workspaces.length === 0) return [];
    const since = new Date(clock.now().getTime() - SUGGESTION_DAYS * DAY_MS);
    return timeEntries.readAll(
      db,
      userEntries(db, userId)
        .whereIn("workspace_id", workspaces.map(idBinding))
        .whereNull("server_deleted_at")
        .whereNull("running_user_id")
        .where("start", ">=", since)
        .orderBy("start", "desc")
        .limit(SUGGESTION_ENTRIES),
    );
  }

  /** A pattern whose project, task and tags still hold (dropping what no longer does), or undefined. */
  async function stillValid(userId: bigint, all: Map<bigint, TrackingScope>, p: EntryPattern): Promise<FavoriteAttributes | undefined> {
    try {
      const { attributes } = await checked(userId, all, {
        workspaceId: p.workspace_id, description: p.description, projectId: p.project_id, taskId: p.task_id, billable: p.billable, tagIds: p.tag_ids,
      });
      return attributes;
    } catch {
      return undefined;
    }
  }

  return (router: ConnectRouter) =>
    router.service(FavoriteService, {
      async listFavorites(req, ctx) {
        const { userId: user } = trackingUserScope(ctx);
        const all = await scopes(ctx);
        const q = favorites.query(db, user).whereIn("workspace_id", [...all.keys()].map(idBinding));
        if (req.since !== undefined) q.where("at", ">=", new Date(Number(req.since) * 1000));
        else q.whereNull("deleted_at");
        const rows: FavoriteRow[] = (await q.orderBy("rank").orderBy("id")).map((raw: Record<string, unknown>) => favorites.read(raw));
        return { favorites: await Promise.all(rows.map((row) => favoriteMessage(db, row, all.get(row.workspace_id)))) };
      },

      async createFavorite(req, ctx) {
        const { userId, userId: user } = trackingUserScope(ctx);
        const body = req.favorite ?? ({ tagIds: [] } as unknown as FavoritePayload);
        const all = await scopes(ctx);
        const { attributes, scope } = await checked(userId, all, favoriteAttributes(body));
        const now = clock.now();
        const row = await storage.change(async (trx) =>
          favorites.insert(trx, {
            user_id: user,
            ...columnsOf(attributes),
            public: body.public ?? false,
            rank: body.rank ?? (await nextRank(trx, user)),
            was_public_at: body.public ? now : null,
            created_at: now,
            at: now,
            deleted_at: null,
          }),
        );
        return { favorite: await favoriteMessage(db, row, scope) };
      },

      async updateFavorite(req, ctx) {
        const { userId, userId: user } = trackingUserScope(ctx);
        const body = req.favorite;
        if (!body || body.favoriteId === undefined) throw favoriteParameterInvalid("favorite_id");
        const id = body.favoriteId;
        const missing = () => favoriteParameterInvalid("favorite_id");
        const all = await scopes(ctx);
        // What the body asks is checked before the change: the workspace's resources are read outside it.
        const current = await db(favorites.table).where("id", idBinding(findableId(id))).first();
        if (!current) throw missing();
        const before = favorites.read(current);
        if (before.user_id !== user) throw favoriteNotOwned(userId, id);
        if (before.deleted_at !== null) throw missing();
        const { attributes, scope } = await checked(userId, all, changedAttributes(attributesOf(before), body));
        const now = clock.now();
        const row = await storage.change(async (trx) => {
          const existing = await owned(trx, userId, id, missing);
          const changes: Partial<FavoriteRow> = { ...columnsOf(attributes), at: now };
          if (body.rank !== undefined) changes.rank = body.rank;
          if (body.public !== undefined) {
            changes.public = body.public;
            if (body.public && !existing.public) changes.was_public_at = now;
          }
          return favorites.update(trx, existing, changes);
        });
        return { favorite: await favoriteMessage(db, row, scope) };
      },

      async suggestFavorites(_req, ctx) {
        const { userId, userId: user } = trackingUserScope(ctx);
        if (await everHadFavorite(db, user)) return { favorites: [] };
        const all = await scopes(ctx);
        const candidates: FavoriteAttributes[] = [];
        for (const pattern of suggestedPatterns(await recentEntries(user, [...all.keys()]), Number.MAX_SAFE_INTEGER)) {
          const attributes = await stillValid(userId, all, pattern);
          if (attributes) candidates.push(attributes);
          if (candidates.length === SUGGESTED_FAVORITES) break;
        }
        if (candidates.length === 0) return { favorites: [] };
        const now = clock.now();
        const rows = await storage.change(async (trx) => {
          // Once per user: a concurrent request that made them first wins.
          if (await everHadFavorite(trx, user)) return [];
          const made: FavoriteRow[] = [];
          for (const [i, attributes] of candidates.entries()) {
            made.push(await favorites.insert(trx, {
              user_id: user, ...columnsOf(attributes), public: false, rank: i + 1, was_public_at: null, created_at: now, at: now, deleted_at: null,
            }));
          }
          return made;
        });
        return { favorites: await Promise.all(rows.map((row) => favoriteMessage(db, row, all.get(row.workspace_id)))) };
      },

      async deleteFavorite(req, ctx) {
        const { userId } = trackingUserScope(ctx);
        const now = clock.now();
        await storage.change(async (trx) => {
          const existing = await owned(trx, userId, req.favoriteId, () => favoriteIdInvalid(req.favoriteId));
          await favorites.update(trx, existing, { deleted_at: now, at: now, tag_ids: [] });
        });
        return {};
      },
    });
}
