import type { Event } from "../../../gen/events/v1/event_pb.js";
import { callbackUrlEmpty, targetRefused, descriptionEmpty, eventFilterActionUnsupported, eventFilterEntityUnsupported, eventFilterIncomplete, eventFilterLimit, eventFiltersEmpty, eventFiltersRepeated, internalFiltersRepeated, subscriptionNotFound } from "../errors.js";
import { TRACKING_EVENTS, TRACKING_EVENT_SERVICES } from "../../../lib/event-catalog.js";
import { randomToken } from "../../../lib/ids.js";
import { checkTargetUrl, type TargetRules } from "../delivery/target.js";
import type { Family, Filter, SubscriptionRow } from "./store.js";

/**
 * The rules of subscriptions: which events exist, which filters are valid, what matches, the
 * limits of a workspace, what a callback URL and an id may be. Pure functions where possible; the
 * RPCs and ingest call them.
 */

/**
 * A subscription id as the internal RPCs carry it (decimal text); another is no subscription's.
 * Fifteen digits are more than any row's id, and keep the binding within an int64 (better-sqlite3
 * refuses a bigint beyond it).
 */
export function subscriptionIdOf(raw: string): bigint {
  if (!/^\d{1,15}$/.test(raw)) throw subscriptionNotFound(raw);
  return BigInt(raw);
}

/** The publishing services whose events a family's subscriptions receive. */
export function familyOfService(service: string): Family | undefined {
  if (service === "hiring") return "hiring";
  if ((TRACKING_EVENT_SERVICES as readonly string[]).includes(service)) return "tracking";
  return undefined;
}

export function matches(filters: Filter[], event: Pick<Event, "entity" | "action">): boolean {
  return filters.some((f) => (f.entity === "*" || f.entity === event.entity) && (f.action === "*" || f.action === event.action));
}

/** A subscription receives events only when enabled and validated. */
export function receivesEvents(sub: Pick<SubscriptionRow, "enabled" | "validated_at">): boolean {
  return sub.enabled && sub.validated_at !== null;
}

/** Webhooks per workspace and event filters per webhook, by plan, as the real service limits them. */
export function workspaceLimits(premium: boolean): { maxWebhooks: number; maxEventsPerWebhook: number } {
  return premium ? { maxWebhooks: 3, maxEventsPerWebhook: 12 } : { maxWebhooks: 1, maxEventsPerWebhook: 3 };
}

export function subscriptionDescription(raw: string): string {
  const description = raw.trim();
  if (!description) throw descriptionEmpty();
  return description;
}

/** Filters of a time-tracking subscription: at least one, no repeats, only entities and actions that exist. */
export function trackingFilters(input: Filter[], maxFilters: number): Filter[] {
  if (input.length === 0) throw eventFiltersEmpty();
  const filters = input.map((f) => ({ entity: f.entity.trim(), action: f.action.trim() }));
  const allActions = new Set(Object.values(TRACKING_EVENTS).flat());
  for (const f of filters) {
    if (!f.entity || !f.action) throw eventFilterIncomplete();
    if (f.entity !== "*" && !TRACKING_EVENTS[f.entity]) throw eventFilterEntityUnsupported(f.entity);
    const actions = f.entity === "*" ? allActions : new Set(TRACKING_EVENTS[f.entity]);
    if (f.action !== "*" && !actions.has(f.action)) throw eventFilterActionUnsupported(f.entity, f.action);
  }
  if (new Set(filters.map((f) => `${f.entity}/${f.action}`)).size !== filters.length) throw eventFiltersRepeated();
  if (filters.length > maxFilters) throw eventFilterLimit(maxFilters);
  return filters;
}

/** Filters of a subscription made over the internal RPCs: none means every event; no repeats. */
export function internalFilters(input: Filter[]): Filter[] {
  const filters = input.length ? input.map((f) => ({ entity: f.entity.trim() || "*", action: f.action.trim() || "*" })) : [{ entity: "*", action: "*" }];
  if (new Set(filters.map((f) => `${f.entity}/${f.action}`)).size !== filters.length) throw internalFiltersRepeated();
  return filters;
}

/** A time-tracking subscription's callback URL: trimmed, not empty, allowed by the target rules. */
export async function callbackUrl(raw: string, rules: TargetRules): Promise<string> {
  const url = raw.trim();
  if (!url) throw callbackUrlEmpty();
  const problem = await checkTargetUrl(url, rules);
  if (problem) throw targetRefused(problem);
  return url;
}

/** A fresh validation code (sent in clear once, in the PING that issues it; only its hash is kept). */
export const newValidationCode = () => randomToken(24);
