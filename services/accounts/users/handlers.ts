import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { AccountService, UserSchema, type User } from "../../../gen/accounts/v1/accounts_pb.js";
import { caller, requireUser } from "../../../lib/identity.js";
import { badRequest } from "../../../lib/errors.js";
import type { AccountsKit } from "../kit.js";
import { AccountsStore, type UserRow } from "./store.js";
import { hashPassword, hashToken, newApiToken, storedApiToken } from "./credentials.js";
import { validateSignup } from "./rules.js";

export function userMessage(row: UserRow, apiToken?: string): User {
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

/** The caller's own account: sign-up, sessions, the profile, the API token. */
export function userHandlers({ storage, clock, box, auth }: AccountsKit) {
  const store = new AccountsStore(storage.db);

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
        return { user: userMessage(user, apiToken), sessionToken: await auth.openSession(userId) };
      },

      async createSession(req) {
        if (!req.email || !req.password) throw badRequest("email and password are required");
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
        if (!token) throw badRequest("no session to close: send the session cookie");
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
    });
  };
}
