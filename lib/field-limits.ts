import { ScalarType, getOption, hasOption, toJson, type DescField, type DescMessage, type DescService, type JsonValue, type Message } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence, isWrapperDesc } from "@bufbuild/protobuf/wkt";
import type { ConnectError, Interceptor } from "@connectrpc/connect";
import { Family, family as familyOption, limits as limitsOption, type FieldLimits } from "../gen/gateway/v1/annotations_pb.js";
import { badRequest, hiringError } from "./errors.js";
import { checkEachRequest } from "./interceptors.js";

/**
 * The field limits declared in the protos (`(gateway.v1.limits)`), checked on every request
 * before its handler runs: the longest string, the smallest and largest number, the most
 * elements. Every service runs it (lib/directory.ts), so a value that does not fit a column
 * is the API family's 400 naming the field, whatever the storage engine.
 */

/** Messages whose value is checked as a whole (JSON size), never walked field by field. */
const JSON_TYPES = new Set(["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"]);

/** How one field is checked; `nested` when its message (or its elements' message) has limits inside. */
interface FieldCheck {
  field: DescField;
  limits?: FieldLimits;
  nested?: DescMessage;
}

/** The checks of a message type, worked out once per descriptor. */
const plans = new WeakMap<DescMessage, FieldCheck[]>();

function messageOf(field: DescField): DescMessage | undefined {
  if (field.fieldKind === "message") return field.message;
  if (field.fieldKind === "list" && field.listKind === "message") return field.message;
  if (field.fieldKind === "map" && field.mapKind === "message") return field.message;
  return undefined;
}

/** True when a value of this message type is walked for limits (not a well-known leaf). */
function walked(desc: DescMessage): boolean {
  return !desc.typeName.startsWith("google.protobuf.");
}

function planOf(desc: DescMessage, visiting = new Set<DescMessage>()): FieldCheck[] {
  const known = plans.get(desc);
  if (known) return known;
  visiting.add(desc);
  const checks: FieldCheck[] = [];
  for (const field of desc.fields) {
    const limits = hasOption(field, limitsOption) ? getOption(field, limitsOption) : undefined;
    const message = messageOf(field);
    // A recursive type is walked: whether it has limits inside is not known yet.
    const nested = message && walked(message) && (visiting.has(message) || planOf(message, visiting).length > 0) ? message : undefined;
    if (limits || nested) checks.push({ field, limits, nested });
  }
  visiting.delete(desc);
  plans.set(desc, checks);
  return checks;
}

/** Unicode code points of a string, counting no further than `max + 1`. */
function exceedsCharacters(s: string, max: number): boolean {
  if (s.length <= max) return false;
  if (s.length > 2 * max) return true;
  let count = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    if (++count > max) return true;
  }
  return false;
}

/** Characters of the compact JSON text of a Struct (a plain object in protobuf-es), Value or ListValue. */
function jsonText(desc: DescMessage, value: unknown): string {
  const json = typeof value === "object" && value !== null && "$typeName" in value ? toJson(desc, value as Message) : (value as JsonValue);
  return JSON.stringify(json) ?? "";
}

type Violation = string | undefined;

function checkNumber(value: number | bigint, limits: FieldLimits, path: string): Violation {
  const { min, max } = limits;
  if (min !== undefined && (typeof value === "bigint" ? value < min : value < Number(min))) return `${path} must be at least ${min}`;
  if (max !== undefined && (typeof value === "bigint" ? value > max : value > Number(max))) return `${path} must be at most ${max}`;
  return undefined;
}

/** One scalar value (a string, bytes, number or bool) against the field's limits. */
function checkScalar(value: unknown, limits: FieldLimits, path: string): Violation {
  if (typeof value === "string") {
    if (!limits.maxLength || !exceedsCharacters(value, limits.maxLength)) return undefined;
    return limits.tooLong ? limits.tooLong.replaceAll("{max}", String(limits.maxLength)) : `${path} must be at most ${limits.maxLength} characters`;
  }
  if (value instanceof Uint8Array) {
    return limits.maxLength && value.byteLength > limits.maxLength ? `${path} must be at most ${limits.maxLength} bytes` : undefined;
  }
  if (typeof value === "number" || typeof value === "bigint") return checkNumber(value, limits, path);
  return undefined;
}

/** One value of a field (a singular value, or one element of a list or map). */
function checkValue(check: FieldCheck, message: DescMessage | undefined, value: unknown, path: string, singular: boolean): Violation {
  const { limits } = check;
  if (message === undefined) return limits ? checkScalar(value, limits, path) : undefined;
  if (JSON_TYPES.has(message.typeName)) {
    if (!limits?.maxLength) return undefined;
    return exceedsCharacters(jsonText(message, value), limits.maxLength) ? `${path} must be at most ${limits.maxLength} characters as JSON` : undefined;
  }
  if (isWrapperDesc(message)) {
    // protobuf-es holds a singular wrapper field (google.protobuf.StringValue, ...) outside a
    // oneof as its bare value, other wrappers as messages.
    const bare = singular && !check.field.oneof ? value : (value as { value?: unknown }).value;
    return limits ? checkScalar(bare, limits, path) : undefined;
  }
  if (check.nested) return violationIn(check.nested, value as Record<string, unknown>, `${path}.`);
  return undefined;
}

function fieldValue(field: DescField, msg: Record<string, unknown>): unknown {
  if (!field.oneof) return msg[field.localName];
  const selected = msg[field.oneof.localName] as { case?: string; value?: unknown } | undefined;
  return selected?.case === field.localName ? selected.value : undefined;
}

/** Zero of a number field without presence (proto3 without `optional`) means "not set": no bound applies. */
function unsetImplicit(field: DescField, value: unknown): boolean {
  return field.fieldKind === "scalar" && field.presence === FeatureSet_FieldPresence.IMPLICIT && (value === 0 || value === 0n);
}

/** The first value of the message that breaks a declared limit, as the message saying so. */
function violationIn(desc: DescMessage, msg: Record<string, unknown>, prefix: string): Violation {
  for (const check of planOf(desc)) {
    const { field, limits } = check;
    const value = fieldValue(field, msg);
    if (value === undefined || value === null || unsetImplicit(field, value)) continue;
    const path = `${prefix}${field.name}`;
    const message = messageOf(field);
    if (field.fieldKind === "list") {
      const items = value as unknown[];
      if (limits?.maxItems && items.length > limits.maxItems) return `${path} must have at most ${limits.maxItems} items`;
      for (let i = 0; i < items.length; i++) {
        const v = checkValue(check, message, items[i], `${path}[${i}]`, false);
        if (v) return v;
      }
    } else if (field.fieldKind === "map") {
      const entries = Object.entries(value as Record<string, unknown>);
      if (limits?.maxItems && entries.length > limits.maxItems) return `${path} must have at most ${limits.maxItems} items`;
      for (const [key, item] of entries) {
        const keyViolation = limits && field.mapKey === ScalarType.STRING ? checkScalar(key, limits, `${path} key`) : undefined;
        if (keyViolation) return keyViolation;
        const v = checkValue(check, message, item, `${path}[${JSON.stringify(key)}]`, false);
        if (v) return v;
      }
    } else if (field.fieldKind !== "enum") {
      const v = checkValue(check, message, value, path, true);
      if (v) return v;
    }
  }
  return undefined;
}

/**
 * The first field of a request that breaks its declared limits, named by its proto name with
 * its path (`event_filters[2].entity`), as the message of the 400; undefined when all fit.
 */
export function fieldLimitViolation(desc: DescMessage, message: object): string | undefined {
  return violationIn(desc, message as Record<string, unknown>, "");
}

/** The longest value the field declares (`max_length`), the one limit its rules and column keep to. */
export function declaredMaxLength(field: DescField): number {
  const max = hasOption(field, limitsOption) ? getOption(field, limitsOption).maxLength : 0;
  if (!max) throw new Error(`${field.parent.typeName}.${field.name} declares no max_length`);
  return max;
}

/**
 * Checks a string that reached a handler other than through the field (a JSON Patch operation's
 * value) against the field's declared length, with the time-tracking API's 400.
 */
export function checkDeclaredLength(field: DescField, value: string | undefined): void {
  const limits = hasOption(field, limitsOption) ? getOption(field, limitsOption) : undefined;
  const violation = value === undefined || !limits ? undefined : checkScalar(value, limits, field.name);
  if (violation) throw badRequest(violation);
}

const hiringServices = new WeakMap<DescService, boolean>();

/** The 400 of the service's API family: the hiring export API's ValidationError, else InvalidArgument. */
function invalid(service: DescService, message: string): ConnectError {
  let hiring = hiringServices.get(service);
  if (hiring === undefined) hiringServices.set(service, (hiring = getOption(service, familyOption) === Family.HIRING));
  return hiring ? hiringError.validation(message) : badRequest(message);
}

/**
 * Server interceptor: refuses a request that breaks a declared limit before its handler runs. A
 * streaming call's messages are checked as they are read: a server-streaming call's one message
 * before its handler starts (the server reads it first), and before any layer after this one
 * (the access interceptor) acts on it.
 */
export function fieldLimitsInterceptor(): Interceptor {
  // Not async: a call within the limits goes on with the next layer's own promise.
  return (next) => (req) => {
    if (req.stream) {
      return next(
        checkEachRequest(req, (message) => {
          const violation = fieldLimitViolation(req.method.input, message);
          if (violation) throw invalid(req.service, violation);
        }),
      );
    }
    const violation = fieldLimitViolation(req.method.input, req.message);
    if (violation) return Promise.reject(invalid(req.service, violation));
    return next(req);
  };
}
