import { SignupRequestSchema, type SignupRequest, type UpdateMeRequest } from "../../../gen/accounts/v1/accounts_pb.js";
import { declaredMaxLength } from "../../../lib/field-limits.js";
import type { UserRow } from "./store.js";
import { beginningOfWeekInvalid, countryIdInvalid, fullnameInvalid, invalidEmail, missingEmail, passwordTooLong, passwordTooShort, profileEmailInvalid, timezoneInvalid } from "../errors.js";
import { countryById } from "../reference-data/countries.js";

/** local@domain.tld, without spaces or control characters. */
const EMAIL = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;

export function isValidTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The longest address: the users table's column, which sign-up declares. */
const MAX_EMAIL = declaredMaxLength(SignupRequestSchema.field.email);

export function isValidEmail(email: string): boolean {
  return email.length <= MAX_EMAIL && EMAIL.test(email);
}

/** Shortest and longest password. */
export const MIN_PASSWORD = 6;
export const MAX_PASSWORD = 128;

/** A new password: MIN_PASSWORD to MAX_PASSWORD characters. */
export function checkNewPassword(password: string): string {
  if (password.length < MIN_PASSWORD) throw passwordTooShort(MIN_PASSWORD);
  if (password.length > MAX_PASSWORD) throw passwordTooLong(MAX_PASSWORD);
  return password;
}

/** The sign-up rules; messages follow the real service's wording. */
export function validateSignup(req: SignupRequest): { email: string; password: string; fullname: string; timezone: string } {
  const email = req.email.trim();
  if (!email) throw missingEmail();
  if (!isValidEmail(email)) throw invalidEmail();
  checkNewPassword(req.password);
  const timezone = req.timezone.trim() || "UTC";
  if (!isValidTimezone(timezone)) throw timezoneInvalid();
  const fullname = (req.displayName.trim() || email.split("@")[0]).slice(0, 255);
  return { email, password: req.password, fullname, timezone };
}

/**
 * The profile changes of PUT /me, each checked with the real API's message. The default
 * workspace's membership and the password are checked by the caller (they need the store).
 */
export function profileChanges(req: UpdateMeRequest): Partial<Pick<UserRow, "fullname" | "email" | "timezone" | "beginning_of_week" | "country_id">> {
  const changes: ReturnType<typeof profileChanges> = {};
  if (req.fullname !== undefined) {
    const fullname = req.fullname.trim();
    if (!fullname) throw fullnameInvalid();
    changes.fullname = fullname;
  }
  if (req.email !== undefined) {
    const email = req.email.trim().toLowerCase();
    if (!isValidEmail(email)) throw profileEmailInvalid();
    changes.email = email;
  }
  if (req.timezone !== undefined) {
    if (!isValidTimezone(req.timezone.trim())) throw timezoneInvalid();
    changes.timezone = req.timezone.trim();
  }
  if (req.beginningOfWeek !== undefined) {
    if (req.beginningOfWeek < 0 || req.beginningOfWeek > 6) throw beginningOfWeekInvalid();
    changes.beginning_of_week = req.beginningOfWeek;
  }
  if (req.countryId !== undefined) {
    // One of the countries GET /countries lists.
    if (req.countryId <= 0n || req.countryId > 100_000n || !countryById(Number(req.countryId))) throw countryIdInvalid();
    changes.country_id = req.countryId;
  }
  return changes;
}
