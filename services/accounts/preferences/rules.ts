import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { featureCodesInvalid, invalidJson, preferenceFieldUnknown, preferenceMemberMissing, preferenceOutOfRange, preferenceRuleKeyInvalid, preferencesClientUnknown, preferencesMissing, preferenceTooLong, preferenceTypeInvalid, preferenceValueInvalid, tooManyPreferenceRules } from "../errors.js";
import { ALPHA_FEATURES } from "./features.js";
import { isEmpty, MAX_RULES, MAX_TEXT, PREFERENCE_FIELDS, type FieldDeclaration } from "./fields.js";

/** A user's stored choices: changed fields over the defaults, features switched on or off. */
export interface StoredPreferences {
  overrides: Record<string, JsonValue>;
  features: Record<string, boolean>;
}

/** What one POST changes: fields set (null: back to the default), features switched. */
export interface PreferenceChanges {
  fields: Record<string, JsonValue>;
  features: Record<string, boolean>;
}

/** The clients that read their preferences through `GET /me/preferences/{client}`. */
export const CLIENTS = ["web", "desktop", "mobile", "extension"] as const;

const MAX_INT32 = 2_147_483_647;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function checkInteger(name: string, v: unknown, [min, max]: readonly [number, number]): number {
  if (typeof v !== "number" || !Number.isInteger(v)) throw preferenceTypeInvalid(name, "integer");
  if (v < min || v > max) throw preferenceOutOfRange(name, min, max);
  return v;
}

function checkText(name: string, v: unknown): string {
  if (typeof v !== "string") throw preferenceTypeInvalid(name, "string");
  if ([...v].length > MAX_TEXT) throw preferenceTooLong(name, MAX_TEXT);
  return v;
}

/** An object with only the named members, each checked by its own rule (absent ones take the rule's value for undefined). */
function checkShape(name: string, v: unknown, members: Record<string, (name: string, v: unknown) => JsonValue>): JsonObject {
  if (!isObject(v)) throw preferenceTypeInvalid(name, "object");
  for (const key of Object.keys(v)) if (!(key in members)) throw preferenceFieldUnknown(`${name}.${key}`);
  const out: JsonObject = {};
  for (const [key, rule] of Object.entries(members)) out[key] = rule(`${name}.${key}`, v[key]);
  return out;
}

const required = (rule: (name: string, v: unknown) => JsonValue) => (name: string, v: unknown) => {
  if (v === undefined) throw preferenceMemberMissing(name);
  return rule(name, v);
};
const optional = (rule: (name: string, v: unknown) => JsonValue, absent: JsonValue) => (name: string, v: unknown) => (v === undefined ? absent : rule(name, v));
const anId = (name: string, v: unknown) => checkInteger(name, v, [0, Number.MAX_SAFE_INTEGER]);
const aCode = (name: string, v: unknown) => checkInteger(name, v, [0, MAX_INT32]);

/** A map from index ("0", "1", ...) to rules, each checked by `rule`. */
function checkRuleMap(name: string, v: unknown, rule: (name: string, v: unknown) => JsonValue): JsonObject {
  if (!isObject(v)) throw preferenceTypeInvalid(name, "object from index to rule");
  const entries = Object.entries(v);
  if (entries.length > MAX_RULES) throw tooManyPreferenceRules(name, MAX_RULES);
  const out: JsonObject = {};
  for (const [index, item] of entries) {
    if (!/^(0|[1-9]\d{0,3})$/.test(index)) throw preferenceRuleKeyInvalid(name, index);
    out[index] = rule(`${name}.${index}`, item);
  }
  return out;
}

/** A value for the field as declared, or the 400 naming it. */
function checkValue(name: string, field: FieldDeclaration, v: JsonValue): JsonValue {
  switch (field.kind) {
    case "boolean":
      if (typeof v !== "boolean") throw preferenceTypeInvalid(name, "boolean");
      return v;
    case "string": {
      const value = checkText(name, v);
      if (field.allowed && !field.allowed.includes(value)) throw preferenceValueInvalid(name);
      return value;
    }
    case "integer":
      return checkInteger(name, v, field.range ?? [0, MAX_INT32]);
    case "id":
      return anId(name, v);
    case "shortcut":
      return checkShape(name, v, { key: required(aCode), modifiers: required(aCode) });
    case "macos_rules":
      return checkRuleMap(name, v, (itemName, item) =>
        checkShape(itemName, item, { id: optional(checkText, ""), keyword: optional(checkText, ""), project_id: optional(anId, 0), task_id: optional(anId, 0) }),
      );
    case "windows_rules":
      // The element's shape is not specified: any object (its size and depth are bounded at the edge).
      return checkRuleMap(name, v, (itemName, item) => {
        if (!isObject(item)) throw preferenceTypeInvalid(itemName, "object");
        return item;
      });
  }
}

/** The features an `alpha_features` array switches, or the 400. */
function featureSwitches(v: JsonValue): Record<string, boolean> {
  if (!Array.isArray(v)) throw preferenceTypeInvalid("alpha_features", "array");
  const switches: Record<string, boolean> = {};
  let unknown = false;
  v.forEach((entry, i) => {
    const name = `alpha_features[${i}]`;
    if (!isObject(entry)) throw preferenceTypeInvalid(name, "object");
    if (typeof entry.enabled !== "boolean") throw preferenceTypeInvalid(`${name}.enabled`, "boolean");
    if (entry.code !== undefined && typeof entry.code !== "string") throw preferenceTypeInvalid(`${name}.code`, "string");
    if (entry.alpha_feature_id !== undefined && typeof entry.alpha_feature_id !== "number") throw preferenceTypeInvalid(`${name}.alpha_feature_id`, "integer");
    const feature = ALPHA_FEATURES.find((f) => (entry.code !== undefined ? f.code === entry.code : f.alpha_feature_id === entry.alpha_feature_id));
    if (!feature || feature.deleted_at || (entry.code === undefined && entry.alpha_feature_id === undefined)) unknown = true;
    else switches[feature.code] = entry.enabled;
  });
  if (unknown) throw featureCodesInvalid();
  return switches;
}

/**
 * What a POST body changes. Names that are no preference field are ignored, as the real API
 * ignores them; a body with no preference field at all is "Missing data".
 */
export function preferenceChanges(body: JsonValue | undefined): PreferenceChanges {
  if (body !== undefined && !isObject(body)) throw invalidJson();
  const changes: PreferenceChanges = { fields: {}, features: {} };
  let known = false;
  for (const [name, value] of Object.entries(body ?? {})) {
    if (name === "alpha_features") {
      changes.features = featureSwitches(value);
      known = true;
      continue;
    }
    const field = Object.hasOwn(PREFERENCE_FIELDS, name) ? PREFERENCE_FIELDS[name] : undefined;
    if (!field) continue;
    known = true;
    if (field.readOnly) throw field.readOnly();
    // null puts the field back to its default.
    changes.fields[name] = value === null ? null : checkValue(name, field, value);
  }
  if (!known) throw preferencesMissing();
  return changes;
}

/** The stored choices after a change. */
export function applyChanges(stored: StoredPreferences, changes: PreferenceChanges): StoredPreferences {
  const overrides = { ...stored.overrides };
  for (const [name, value] of Object.entries(changes.fields)) {
    if (value === null) delete overrides[name];
    else overrides[name] = value;
  }
  return { overrides, features: { ...stored.features, ...changes.features } };
}

/**
 * The preferences object: every field (the user's value or the default; `defaults` overrides
 * declared defaults that depend on the user), the empty ones of the "omitted when empty" left
 * out, and every alpha feature with the user's flag; names in alphabetical order.
 */
export function preferencesView(stored: StoredPreferences, defaults: Record<string, JsonValue> = {}): JsonObject {
  const out: JsonObject = {
    alpha_features: ALPHA_FEATURES.map((f) => ({
      alpha_feature_id: f.alpha_feature_id,
      code: f.code,
      ...(f.deleted_at ? { deleted_at: f.deleted_at } : {}),
      ...(f.description ? { description: f.description } : {}),
      enabled: !f.deleted_at && stored.features[f.code] === true,
    })),
  };
  for (const [name, field] of Object.entries(PREFERENCE_FIELDS)) {
    const value = Object.hasOwn(stored.overrides, name) ? stored.overrides[name] : Object.hasOwn(defaults, name) ? defaults[name] : field.default;
    if (field.omitEmpty && isEmpty(value)) continue;
    out[name] = value;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The client of `GET /me/preferences/{client}`, or the 400. */
export function checkClient(client: string): void {
  if (!(CLIENTS as readonly string[]).includes(client)) throw preferencesClientUnknown();
}

/** Whether preferences last changed at `updatedAt` are news to a client that asks `since` (UNIX seconds; 0: always). */
export function changedSince(updatedAt: Date | undefined, since: bigint): boolean {
  if (since === 0n) return true;
  return updatedAt !== undefined && Math.floor(updatedAt.getTime() / 1000) >= Number(since);
}
