import type { HandlerContext } from "@connectrpc/connect";
import type { Clock } from "../../../lib/clock.js";
import type { Logger } from "../../../lib/logger.js";
import type { SecretBox } from "../../../lib/secret-box.js";
import { requireUser } from "../../../lib/identity.js";
import { userDataMissing, wrongCredentials } from "../errors.js";
import type { AccountsStore, UserRow } from "./store.js";
import { DUMMY_PASSWORD_HASH, hashToken, newSessionToken, verifyPassword } from "./credentials.js";
import { SignInThrottle } from "./sign-in-throttle.js";

/** Sessions last 30 days (the gateway's cookie Max-Age is the same). */
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

/**
 * Who a caller is: password checks (throttled per account), API tokens, sessions, and the
 * caller's own API token read back. Every handler of the accounts service that needs one of
 * these asks here.
 */
export class Authentication {
  readonly throttle: SignInThrottle;

  constructor(
    private readonly store: AccountsStore,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly log: Logger,
  ) {
    this.throttle = new SignInThrottle(store.db, clock);
  }

  /**
   * Every password check goes through here (sign-in, Basic email:password, and whatever checks
   * a password later, e.g. a password change): throttled per account across replicas
   * (sign-in-throttle.ts), and as slow for an unknown e-mail as for a known one. Answers the
   * user when the password is right, undefined when not; throws 429 while the account is
   * throttled.
   */
  async checkPassword(email: string, password: string): Promise<UserRow | undefined> {
    const user = await this.store.userByEmail(email);
    const ok = await this.throttle.check(email, () => verifyPassword(password, user?.password_hash ?? DUMMY_PASSWORD_HASH));
    return user && ok ? user : undefined;
  }

  /** The user of Basic credentials (email and password, or token and "api_token") or of a session token. */
  async authenticate(username: string, password: string, sessionToken: string): Promise<bigint> {
    if (sessionToken) {
      const id = await this.store.userIdBySession(hashToken(sessionToken), this.clock.now());
      if (id === undefined) throw wrongCredentials();
      return id;
    }
    if (!username) throw wrongCredentials();
    if (password === "api_token") {
      const user = await this.store.userByApiTokenHash(hashToken(username));
      if (user) return user.id;
    }
    const user = await this.checkPassword(username, password);
    if (!user) throw wrongCredentials();
    return user.id;
  }

  /** A new session of the user; answers its token (only the hash is kept). */
  async openSession(userId: bigint): Promise<string> {
    const token = newSessionToken();
    const now = this.clock.now();
    await this.store.createSession(hashToken(token), userId, now, new Date(now.getTime() + SESSION_TTL_MS));
    return token;
  }

  /** The calling user's row. */
  async currentUser(ctx: HandlerContext): Promise<UserRow> {
    const user = await this.store.userById(requireUser(ctx));
    if (!user) throw userDataMissing();
    return user;
  }

  /** The user's API token for the user's own answers; none for users from before tokens were sealed. */
  apiTokenOf(user: UserRow): string | undefined {
    if (!user.api_token_sealed) return undefined;
    try {
      return this.box.open(user.api_token_sealed);
    } catch (err) {
      // Sealed with another key (ENCRYPTION_KEY changed): the account still works, without the token shown.
      this.log.error({ err, userId: user.id }, "the API token does not open with the configured ENCRYPTION_KEY");
      return undefined;
    }
  }
}
