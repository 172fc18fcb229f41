import type { SignupRequest } from "../../../gen/accounts/v1/accounts_pb.js";
import { badRequest } from "../../../lib/errors.js";

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

/** The sign-up rules; messages follow the real service's wording. */
export function validateSignup(req: SignupRequest): { email: string; password: string; fullname: string; timezone: string } {
  const email = req.email.trim();
  if (!email) throw badRequest("Missing e-mail");
  if (email.length > 254 || !EMAIL.test(email)) throw badRequest("Invalid e-mail");
  if (req.password.length < 6) throw badRequest("Password should be at least 6 characters");
  if (req.password.length > 128) throw badRequest("Password should be at most 128 characters");
  const timezone = req.timezone.trim() || "UTC";
  if (!isValidTimezone(timezone)) throw badRequest("Invalid timezone");
  const fullname = (req.displayName.trim() || email.split("@")[0]).slice(0, 255);
  return { email, password: req.password, fullname, timezone };
}
