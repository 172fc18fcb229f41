import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { AccountService, UserSchema, type User } from "../../../gen/accounts/v1/accounts_pb.js";
import { caller, requireUser } from "../../../lib/identity.js";
import { randomToken, rowId } from "../../../lib/ids.js";
import type { AccountsKit } from "../kit.js";
import { credentialsMissing, currentPasswordMissing, currentPasswordWrong, defaultWorkspaceInvalid, emailTaken, invalidEmail, missingEmail, noSessionToClose, ownedOrganizationsShared, resetCodeInvalid } from "../errors.js";
import { AccountsStore, type UserRow } from "./store.js";
import { hashPassword, hashToken, newApiToken, storedApiToken } from "./credentials.js";
import { checkNewPassword, isValidEmail, profileChanges, validateSignup } from "./rules.js";
import { MAX_RESETS_PER_HOUR, passwordResetMail, RESET_CODE_TTL_MS } from "./mails.js";

export function userMessage(row: UserRow, apiToken?: string): User {
  return create(UserSchema, {
    id: row.id,
    email: row.email,
    fullname: row.fullname,
    timezone: row.timezone,
    defaultWorkspaceId: row.default_workspace_id ?? 0n,
    beginningOfWeek: row.beginning_of_week,
    imageUrl: "",
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
    at: timestampFromDate(row.updated_at),
    countryId: row.country_id === null ? undefined : row.country_id,
    hasPassword: true,
    openidEnabled: false,
    apiToken,
  });
}

/** The caller's own account: sign-up, sessions, the profile, the API token. */
export function userHandlers({ storage, clock, box, auth, publicUrl }: AccountsKit) {
  const store = new AccountsStore(storage.db);

  return (router: ConnectRouter) => {
    router.service(AccountService, {
      async signup(req) {
        const input = validateSignup(req);
        const apiToken = newApiToken();
        const passwordHash = await hashPassword(input.password);
        const userId = await storage.change(
          (trx) => store.createUserWithWorkspace(trx, { ...input, passwordHash, apiToken: storedApiToken(apiToken, box) }, clock.now()),
          { onDuplicate: emailTaken },
        );
        const user = (await store.userById(userId))!;
        return { user: userMessage(user, apiToken), sessionToken: await auth.openSession(userId) };
      },

      async createSession(req) {
        if (!req.email || !req.password) throw credentialsMissing();
        const userId = await auth.authenticate(req.email, req.password, "");
        const user = (await store.userById(userId))!;
        return { user: userMessage(user, auth.apiTokenOf(user)), sessionToken: await auth.openSession(userId) };
      },

      async createSessionForCaller(_req, ctx) {
        const user = await auth.currentUser(ctx);
        return { user: userMessage(user, auth.apiTokenOf(user)), sessionToken: await auth.openSession(user.id) };
      },

      async deleteSession(_req, ctx) {
        requireUser(ctx);
        const token = caller(ctx).sessionToken;
        if (!token) throw noSessionToClose();
        await store.deleteSession(hashToken(token));
        return {};
      },

      async getMe(_req, ctx) {
        const user = await auth.currentUser(ctx);
        return { user: userMessage(user, auth.apiTokenOf(user)) };
      },

      async resetApiToken(_req, ctx) {
        const user = await auth.currentUser(ctx);
        const apiToken = newApiToken();
        await store.setApiToken(user.id, storedApiToken(apiToken, box), clock.now());
        return { apiToken };
      },

      async updateMe(req, ctx) {
        const user = await auth.currentUser(ctx);
        const changes: Partial<Omit<UserRow, "id">> = profileChanges(req);
        if (req.defaultWorkspaceId !== undefined) {
          const workspaceId = rowId(req.defaultWorkspaceId);
          if (!workspaceId || !(await store.isActiveMember(storage.db, user.id, workspaceId))) throw defaultWorkspaceInvalid();
          changes.default_workspace_id = workspaceId;
        }
        if (req.password !== undefined) {
          if (!req.currentPassword) throw currentPasswordMissing();
          checkNewPassword(req.password);
          if (!(await auth.checkPassword(user.email, req.currentPassword))) throw currentPasswordWrong();
          changes.password_hash = await hashPassword(req.password);
        }
        changes.updated_at = clock.now();
        const session = caller(ctx).sessionToken;
        await storage.change(async (trx) => {
          await store.updateUser(trx, user.id, changes);
          // A new password ends every other session; the caller's own goes on.
          if (changes.password_hash) await store.deleteSessionsOf(trx, user.id, session ? hashToken(session) : undefined);
        }, { onDuplicate: emailTaken });
        const updated = (await store.userById(user.id))!;
        return { user: userMessage(updated, auth.apiTokenOf(updated)) };
      },

      async getLogged(_req, ctx) {
        requireUser(ctx);
        return {};
      },

      async closeAccount(_req, ctx) {
        const user = await auth.currentUser(ctx);
        await storage.change(async (trx) => {
          const others = await store.ownedOrganizationsWithOthers(trx, user.id);
          if (others.length) throw ownedOrganizationsShared(others);
          const replacement = { email: `closed-${user.id}-${randomToken(6)}@closed.invalid`, apiTokenHash: hashToken(newApiToken()) };
          await store.closeAccount(trx, user.id, replacement, clock.now());
        });
        return {};
      },

      async requestPasswordReset(req) {
        const email = req.email.trim().toLowerCase();
        if (!email) throw missingEmail();
        if (!isValidEmail(email)) throw invalidEmail();
        const user = await store.userByEmail(email);
        // The same answer whether or not the address has an account, and when the hourly limit is reached.
        if (!user || user.closed_at) return {};
        const now = clock.now();
        await storage.change(async (trx, _emit, mail) => {
          if ((await store.resetsSince(trx, user.id, new Date(now.getTime() - 3600_000))) >= MAX_RESETS_PER_HOUR) return;
          const code = randomToken(24);
          await store.insertPasswordReset(trx, { code_hash: hashToken(code), user_id: user.id, created_at: now, expires_at: new Date(now.getTime() + RESET_CODE_TTL_MS), used_at: null });
          await mail(passwordResetMail(user.email, code, publicUrl));
        });
        return {};
      },

      async confirmPasswordReset(req) {
        const passwordHash = await hashPassword(checkNewPassword(req.password));
        const now = clock.now();
        const user = await storage.change(async (trx) => {
          const reset = await store.passwordResetForUse(trx, hashToken(req.resetCode));
          if (!reset || reset.used_at || reset.expires_at <= now) throw resetCodeInvalid();
          const owner = (await store.userById(reset.user_id, trx))!;
          await store.updateUser(trx, owner.id, { password_hash: passwordHash, updated_at: now });
          await store.usePasswordResets(trx, owner.id, now);
          await store.deleteSessionsOf(trx, owner.id);
          // The owner proved control of the mailbox: earlier failed sign-ins no longer count against it.
          await auth.throttle.forget(trx, owner.email);
          return owner;
        });
        const updated = (await store.userById(user.id))!;
        return { user: userMessage(updated, auth.apiTokenOf(updated)), sessionToken: await auth.openSession(user.id) };
      },
    });
  };
}
