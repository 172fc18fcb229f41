import { isRateChangeMode } from "../../../lib/rate-change-modes.js";
import { rateLevelElsewhere, rateLevelInvalid, rateModeInvalid, rateModeOrStartMissing, rateStartInvalid, rateTypeInvalid } from "../errors.js";
import type { RateLevel, RateRow, RateType } from "./store.js";

/** The level of a request: this service keeps project, project user and task rates. */
export function rateLevelOf(raw: string): RateLevel {
  const level = raw.trim();
  if (level === "project" || level === "project_user" || level === "task") return level;
  if (level === "workspace" || level === "workspace_user") throw rateLevelElsewhere(level);
  throw rateLevelInvalid();
}

/** The type of rate: billable rates by default; `labor_rates` (POST's word) and `labor_costs` (GET's) are one type. */
export function rateTypeOf(raw: string): RateType {
  const type = raw.trim();
  if (type === "" || type === "billable_rates") return "billable_rates";
  if (type === "labor_rates" || type === "labor_costs") return "labor_costs";
  throw rateTypeInvalid();
}

/** The rate change mode and explicit start of a POST: at least one of them. */
export function rateTiming(modeRaw: string, startRaw: string): { mode: string | null; start: Date | undefined } {
  const mode = modeRaw.trim();
  const startText = startRaw.trim();
  if (!mode && !startText) throw rateModeOrStartMissing();
  if (mode && !isRateChangeMode(mode)) throw rateModeInvalid();
  let start: Date | undefined;
  if (startText) {
    start = new Date(startText);
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(startText) || Number.isNaN(start.getTime())) throw rateStartInvalid();
  }
  return { mode: mode || null, start };
}

/** What a new rate does to the entity's live rates of its type. */
export interface RatePlan {
  /** Live rates the new one replaces (marked deleted). */
  replaced: number[];
  /** A live rate the new one ends (its `end` set to the new start). */
  ended?: { id: number; end: Date };
  start: Date;
  end: Date | null;
}

/**
 * Where a new rate goes among the live ones (`live`: not deleted, by start). An explicit start or
 * `start-today` (midnight UTC) begins it then: the rate holding that time ends there (or is
 * replaced when it starts then too), and the new one lasts until the next rate's start.
 * `override-current` replaces the rate that holds now and takes its period (from now when none
 * does); `override-all` replaces every rate and holds from the earliest start on (now when none).
 */
export function planRate(live: readonly RateRow[], mode: string | null, start: Date | undefined, now: Date): RatePlan {
  const holds = (r: RateRow, at: Date) => r.start <= at && (r.end === null || r.end > at);
  if (start === undefined && mode === "override-all") {
    const earliest = live.length ? live[0].start : now;
    return { replaced: live.map((r) => r.id), start: earliest, end: null };
  }
  if (start === undefined && mode === "override-current") {
    const current = live.find((r) => holds(r, now));
    if (current) return { replaced: [current.id], start: current.start, end: current.end };
    start = now;
  }
  const at = start ?? new Date(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
  const holder = live.find((r) => holds(r, at));
  const next = live.find((r) => r.start > at);
  const plan: RatePlan = { replaced: [], start: at, end: next ? next.start : null };
  if (holder && holder.start.getTime() === at.getTime()) plan.replaced.push(holder.id);
  else if (holder) plan.ended = { id: holder.id, end: at };
  return plan;
}

/** The rate of the live ones that holds now, if any. */
export function currentRate(live: readonly RateRow[], now: Date): RateRow | undefined {
  return live.find((r) => r.start <= now && (r.end === null || r.end > now));
}
