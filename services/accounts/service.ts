import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { AccountService, IdentityService, UserSchema, type User } from "../../gen/accounts/v1/accounts_pb.js";
import type { Clock } from "../../lib/clock.js";
import type { Logger } from "../../lib/logger.js";
import type { SecretBox } from "../../lib/secret-box.js";
import type { ServiceStorage } from "../../lib/storage.js";
import { caller, requireUser } from "../../lib/identity.js";
import { badRequest, notFound } from "../../lib/errors.js";
import { AccountsStore, type UserRow } from "./store.js";
import { DUMMY_PASSWORD_HASH, hashPassword, hashToken, newApiToken, newSessionToken, storedApiToken, verifyPassword } from "./credentials.js";
import { validateSignup } from "./signup.js";
import { SignInThrottle } from "./sign-in-throttle.js";

/** Sessions last 30 days (the gateway's cookie Max-Age is the same). */
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

function userMessage(row: UserRow, apiToken?: string): User {
  return create(UserSchema, {
    id: BigInt(row.id),
    email: row.email,
    fullname: row.fullname,
    timezone: row.timezone,
    defaultWorkspaceId: BigInt(row.default_workspace_id ?? 0),
    beginningOfWeek: row.beginning_of_week,
    imageUrl: "",
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
    at: timestampFromDate(row.updated_at),
    hasPassword: true,
    openidEnabled: false,
    apiToken,
  });
}

const unauthenticated = () => new ConnectError("Incorrect username and/or password", Code.Unauthenticated);

/** What the accounts routes use besides their storage. */
export interface AccountsDeps {
  clock: Clock;
  /** Seals the API tokens kept in the users table (ENCRYPTION_KEY). */
  box: SecretBox;
  log: Logger;
}

export function accountsRoutes(storage: ServiceStorage, { clock, box, log }: AccountsDeps) {
  const store = new AccountsStore(storage.db);
  const throttle = new SignInThrottle(storage.db, clock);

  /** The user's API token for the user's own answers; none for users from before tokens were sealed. */
  function apiTokenOf(user: UserRow): string | undefined {
    if (!user.api_token_sealed) return undefined;
    try {
      return box.open(user.api_token_sealed);
    } catch (err) {
      // Sealed with another key (ENCRYPTION_KEY changed): the account still works, without the token shown.
      log.error({ err, userId: user.id }, "the API token does not open with the configured ENCRYPTION_KEY");
      return undefined;
    }
  }

  /**
   * Every password check goes through here (sign-in, Basic email:password, and whatever checks
   * a password later, e.g. a password change): throttled per account across replicas
   * (sign-in-throttle.ts), and as slow for an unknown e-mail as for a known one. Answers the
   * user when the password is right, undefined when not; throws 429 while the account is
   * throttled.
   */
  async function checkPassword(email: string, password: string): Promise<UserRow | undefined> {
    const user = await store.userByEmail(email);
    const ok = await throttle.check(email, () => verifyPassword(password, user?.password_hash ?? DUMMY_PASSWORD_HASH));
    return user && ok ? user : undefined;
  }

  async function openSession(userId: number): Promise<string> {
    const token = newSessionToken();
    const now = clock.now();
    await store.createSession(hashToken(token), userId, now, new Date(now.getTime() + SESSION_TTL_MS));
    return token;
  }

  async function currentUser(ctx: HandlerContext): Promise<UserRow> {
    const user = await store.userById(Number(requireUser(ctx)));
    if (!user) throw notFound("could not load user data");
    return user;
  }

  async function authenticate(username: string, password: string, sessionToken: string): Promise<number> {
    if (sessionToken) {
      const id = await store.userIdBySession(hashToken(sessionToken), clock.now());
      if (id === undefined) throw unauthenticated();
      return id;
    }
    if (!username) throw unauthenticated();
    if (password === "api_token") {
      const user = await store.userByApiTokenHash(hashToken(username));
      if (user) return user.id;
    }
    const user = await checkPassword(username, password);
    if (!user) throw unauthenticated();
    return user.id;
  }

  return (router: ConnectRouter) => {
    router.service(AccountService, {
      async signup(req) {
        const input = validateSignup(req);
        const apiToken = newApiToken();
        const passwordHash = await hashPassword(input.password);
        const userId = await storage.change(
          (trx) => store.createUserWithWorkspace(trx, { ...input, passwordHash, apiToken: storedApiToken(apiToken, box) }, clock.now()),
          { onDuplicate: () => badRequest("user with this email already exists") },
        );
        const user = (await store.userById(userId))!;
        return { user: userMessage(user, apiToken), sessionToken: await openSession(userId) };
      },

      async createSession(req) {
        if (!req.email || !req.password) throw badRequest("email and password are required");
        const userId = await authenticate(req.email, req.password, "");
        const user = (await store.userById(userId))!;
        return { user: userMessage(user, apiTokenOf(user)), sessionToken: await openSession(userId) };
      },

      async createSessionForCaller(_req, ctx) {
        const user = await currentUser(ctx);
        return { user: userMessage(user, apiTokenOf(user)), sessionToken: await openSession(user.id) };
      },

      async deleteSession(_req, ctx) {
        requireUser(ctx);
        const token = caller(ctx).sessionToken;
        if (!token) throw badRequest("no session to close: send the session cookie");
        await store.deleteSession(hashToken(token));
        return {};
      },

      async getMe(_req, ctx) {
        const user = await currentUser(ctx);
        return { user: userMessage(user, apiTokenOf(user)) };
      },

      async resetApiToken(_req, ctx) {
        const user = await currentUser(ctx);
        const apiToken = newApiToken();
        await store.setApiToken(user.id, storedApiToken(apiToken, box), clock.now());
        return { apiToken };
      },
    });

    router.service(IdentityService, {
      async authenticate(req) {
        return { userId: BigInt(await authenticate(req.username, req.password, req.sessionToken)) };
      },

      async checkWorkspaceAccess(req) {
        const row = await store.workspaceAccess(Number(req.userId), Number(req.workspaceId));
        if (!row) return { allowed: false };
        return {
          allowed: true,
          admin: Boolean(row.admin),
          organizationId: BigInt(row.organization_id),
          premium: Boolean(row.premium),
          role: row.role,
        };
      },

      async setWorkspacePlan(req) {
        const updated = await store.setWorkspacePremium(Number(req.workspaceId), req.premium, clock.now());
        if (!updated) throw notFound(`workspace ${req.workspaceId} not found`);
        return {};
      },
    });
  };
}
