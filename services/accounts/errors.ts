import { badRequest, conflict, forbidden, notFound, paymentRequired, tooManyRequests, unauthenticated } from "../../lib/errors.js";

/**
 * Every message the accounts service answers, named once (OpenFGA's pkg/server/errors/errors.go).
 * An error is a constructor (a fresh ConnectError for each throw) that carries its status: without
 * arguments for a fixed text, with the values its text names otherwise. A few are plain texts, where
 * the message is not an error of its own (a bulk change's failures, an answer's `messages`). The
 * wording is the reference API's, capitals and full stops included: change none without changing
 * what clients read. Tests compare answers with `name().rawMessage`.
 */

// Several resources.
export const invalidJson = () => badRequest("Invalid JSON input");
export const missingEmail = () => badRequest("Missing e-mail");
/** An organization's workspace or group (by id in the path) that the caller's organization does not have. */
export const resourceNotFound = () => notFound("Resource can not be found");
/** Workspaces, and organization users, in the accounts service's words (the tracking service lists them unquoted). */
export const rateChangeModeInvalid = (modes: readonly string[]) => badRequest(`rate_change_mode must be one of ${modes.map((m) => `'${m}'`).join(", ")}`);
/** A new workspace (or organization) would make one of its admins a member of too many workspaces. */
export const userWorkspaceLimit = (max: number) => badRequest(`User can have at most ${max} workspaces`);

// Users: sign-up, sessions, the profile, password resets.
export const invalidEmail = () => badRequest("Invalid e-mail");
export const emailTaken = () => badRequest("user with this email already exists");
export const passwordTooShort = (min: number) => badRequest(`Password should be at least ${min} characters`);
export const passwordTooLong = (max: number) => badRequest(`Password should be at most ${max} characters`);
export const timezoneInvalid = () => badRequest("Invalid timezone");
export const credentialsMissing = () => badRequest("email and password are required");
export const wrongCredentials = () => unauthenticated("Incorrect username and/or password");
/** 429 with Retry-After: the account's failed sign-ins fill the throttle's window. */
export const signInThrottled = (retryAfterSeconds: number) => tooManyRequests("Too many failed sign-in attempts; try again later", retryAfterSeconds);
export const noSessionToClose = () => badRequest("no session to close: send the session cookie");
/** The caller's row is gone (a session outliving its account). */
export const userDataMissing = () => notFound("could not load user data");
export const fullnameInvalid = () => badRequest("Invalid fullname");
/** PUT /me's wording (sign-up and resets say "e-mail"). */
export const profileEmailInvalid = () => badRequest("Invalid email");
export const beginningOfWeekInvalid = () => badRequest("Invalid beginning_of_week");
export const countryIdInvalid = () => badRequest("Invalid country_id");
export const defaultWorkspaceInvalid = () => badRequest("Invalid default_workspace_id");
export const currentPasswordMissing = () => badRequest("Current password must be present to change password");
export const currentPasswordWrong = () => badRequest("Current password is not valid");
export const ownedOrganizationsShared = (names: readonly string[]) => badRequest(`Hand over the organization ${names.join(", ")} to another owner before closing the account`);
export const resetCodeInvalid = () => badRequest("Invalid or expired reset code");

// Identity and plans (internal RPCs).
export const userNotFound = (userId: bigint) => notFound(`user ${userId} not found`);
export const workspaceNotFound = (workspaceId: bigint) => notFound(`workspace ${workspaceId} not found`);
export const organizationNotFound = (organizationId: bigint) => notFound(`organization ${organizationId} not found`);

// Organizations.
/** POST /organizations and PUT /organizations/{id} word an empty name differently. */
export const newOrganizationNameEmpty = () => badRequest("Field 'name' cannot be empty");
export const organizationNameEmpty = () => badRequest("field 'name' cannot be empty");
export const organizationFieldMissing = () => badRequest("At least one field is required");
export const workspaceNameMissing = () => badRequest("workspace name must be provided");
export const notOrganizationMember = () => badRequest("The user does not belong to the organization.");
export const ownerCannotLeave = () => badRequest("Cannot remove the organization owner. The owner can leave only as the organization's last user.");

// Organization users: the list's query, removal, changes.
export const queryValueInvalid = (name: string) => badRequest(`Invalid value sent for '${name}'.`);
export const queryValueNotPositive = (name: string) => badRequest(`${name} parameter must contain values > 0.`);
export const activeStatusInvalid = () => badRequest("active_status parameter can contain only 'active', 'inactive' or 'invited'.");
export const onlyAdminsInvalid = () => badRequest("only_admins parameter can contain only 'true' or 'false'.");
export const sortDirInvalid = () => badRequest("sort_dir parameter can contain only 'asc' or 'desc'.");
export const organizationUserIdsMissing = () => badRequest("At least one organization user ID must be supplied.");
export const organizationUserIdsRepeated = () => badRequest("Organization user IDs must be unique.");
export const foreignOrganizationUsers = (ids: readonly bigint[]) => badRequest(`The following organization user IDs do not belong to this organization: '${ids.join(",")}'.`);
export const ownerNotRemovable = (organizationUserId: bigint) => badRequest(`Cannot remove the organization owner user with organization user ID='${organizationUserId}'.`);
export const organizationUserNotFound = () => notFound("Invalid organization user ID");
export const postedFieldsInvalid = (postable: readonly string[]) => badRequest(`postedFields may name only ${postable.join(", ")}`);
export const organizationUserFieldMissing = () => badRequest("At least one field is required.");
export const adminFlagsAndRole = () => badRequest("Cannot use both admin flags and role.");
export const organizationRoleInvalid = () => badRequest("Invalid organization role.");
/** `fields` in the reference's words: "rate, labour_cost, rate_change_mode and working_hours_in_minutes". */
export const paidFieldsNeedPaidPlan = (fields: string) => paymentRequired(`Setting ${fields} needs a paid organization plan`);
export const ownerAdminRequired = () => badRequest("Cannot remove admin privileges from owner.");
export const ownerDeactivation = () => badRequest("Cannot deactivate owner.");
export const activeUserLimit = (max: number) => badRequest(`Active user limit is ${max}. Upgrade to add more active users`);

// Workspaces.
export const workspaceNameNil = () => badRequest("workspace name must not be nil");
export const workspaceNameEmpty = () => badRequest("workspace name must contain non-space characters");
export const workspaceNameTaken = () => badRequest("another workspace with the same name exists in the organization");
export const defaultCurrencyInvalid = () => badRequest("default_currency must be a three-letter currency code");
export const roundingInvalid = () => badRequest("rounding must be -1 (down), 0 (nearest) or 1 (up)");
export const premiumNeeded = (field: string) => paymentRequired(`premium needed to use ${field}`);
export const tagRestrictionNeedsPremium = () => paymentRequired("restricting tag management to administrators needs a premium subscription");
/** A user to make admin who is no active member of the workspace. */
export const adminNotMember = () => badRequest("user not in the workspace");
export const multipleWorkspacesNotEnabled = () => badRequest("multiple workspaces not enabled in this organization");
export const organizationWorkspaceLimit = () => badRequest("organization workspace maximum reached");
/** A new workspace's admin (or its creator) who does not act in the organization. */
export const workspaceAdminUnknown = () => badRequest("user does not exist");
/** Setting the time entry constraints of a workspace that is gone. */
export const constraintsWorkspaceMissing = () => badRequest("Workspace not found");

// Workspace users: removal and assignments.
export const workspaceUserIdsMissing = () => badRequest("At least one workspace user ID must be supplied.");
export const workspaceUserIdsRepeated = () => badRequest("Workspace user IDs must be unique.");
export const wrongWorkspaceUserIds = () => badRequest("Wrong workspace user IDs.");
export const assignmentEmpty = () => badRequest("Nothing to change.");
export const assignmentOperationInvalid = () => badRequest("Field operation can contain only 'add' or 'remove'.");
export const assignmentUserAndGroup = () => badRequest("Cannot send user_id and group_id in the same element.");
export const assignmentUserOrGroupMissing = () => badRequest("One of user_id or group_id is required.");
export const assignmentWorkspaceInvalid = () => badRequest("Invalid workspace ID.");
export const assignmentGroupInvalid = () => badRequest("Invalid group_id.");
export const assignmentUserInvalid = () => badRequest("Invalid user_id.");
export const payingUserNotRemovable = () => badRequest("Cannot remove paying user.");
export const workspaceOwnerNotRemovable = () => badRequest("Cannot remove workspace owner.");
export const organizationAdminNotRemovable = () => badRequest("Cannot remove organization admin.");

// Invitations.
export const emailsMissing = () => badRequest("at least one email is required");
export const invitedWorkspacesMissing = () => badRequest("at least one workspace is required");
export const invitedEmailInvalid = (raw: string) => badRequest(`Invalid e-mail: '${raw}'`);
export const invitedWorkspaceInvalid = () => badRequest("invalid workspace ID");
export const invitedRoleInvalid = (roles: readonly string[]) => badRequest(`role must be one of ${roles.join(", ")}`);
export const invitationLimitReached = () => badRequest("Invitation limit reached (please try again later; or upgrade)");
export const inactiveMemberInvited = (email: string) => badRequest(`User with e-mail '${email}' is already an inactive member of the organization`);
/** Not an error: the answer's `messages` name each address that needed no invitation. */
export const alreadyMemberNotice = (email: string) => `User with e-mail '${email}' is already a member of the organization`;
export const invitationCodeInvalid = () => notFound("Invalid invitation code");
export const invitationCodeNotFound = () => notFound("Invitation code not found");
export const invitationOrganizationMismatch = () => badRequest("Organization ID and invitation organization ID mismatch");

// Groups.
export const groupNotFound = () => notFound("Invalid group ID");
/** The groups endpoints' wording for an organization the caller may not change (lib's NO_ACCESS ends with a full stop). */
export const groupOrganizationNoAccess = () => forbidden("User does not have access to this resource");
export const groupNameTaken = () => badRequest("Name has already been taken");
export const groupNameMissing = () => badRequest("Group name must be present");
export const groupWorkspaceFilterInvalid = () => badRequest("invalid number");
export const tooManyPatches = (max: number) => badRequest(`Too many patches, maximum is ${max}`);
export const tooManyPatchValues = (max: number) => badRequest(`Too many values per patch, maximum is ${max}`);
export const patchOperationInvalid = () => badRequest("Empty or invalid patch operation");
export const patchPathInvalid = () => badRequest("Empty or invalid patch path");
/** Texts: a create or update refuses the first with its 400, a PATCH lists it among its failures. */
export const userNotInOrganization = (user: bigint | number, organization: bigint) => `User ${user} not exists in the organization ${organization}`;
export const workspaceNotInOrganization = (workspace: bigint, organization: bigint) => `Workspace ${workspace} not exists in the organization ${organization}`;

// Preferences.
export const preferencesMissing = () => badRequest("Missing data");
export const preferenceTypeInvalid = (name: string, expected: string) => badRequest(`Invalid value for ${name}: expected ${expected}`);
export const preferenceOutOfRange = (name: string, min: number, max: number) => badRequest(`Value in ${name} is out of range (${min} to ${max})`);
export const preferenceTooLong = (name: string, max: number) => badRequest(`Value in ${name} is longer than ${max} characters`);
/** A string field's value outside its allowed list (date_format, timeofday_format). */
export const preferenceValueInvalid = (name: string) => badRequest(`Value in ${name} is invalid`);
export const preferenceFieldUnknown = (name: string) => badRequest(`Unknown field ${name}`);
export const preferenceMemberMissing = (name: string) => badRequest(`Missing ${name}`);
export const tooManyPreferenceRules = (name: string, max: number) => badRequest(`${name} holds at most ${max} rules`);
export const preferenceRuleKeyInvalid = (name: string, key: string) => badRequest(`Invalid value for ${name}: keys are indexes (0, 1, ...), got ${JSON.stringify(key.slice(0, 20))}`);
export const tosAcceptNeededReadOnly = () => badRequest("Cannot set value for ToSAcceptNeeded");
export const featureCodesInvalid = () => badRequest("Invalid feature code(s)");
export const preferencesClientUnknown = () => badRequest("Unknown client");

// Reference data, the directory and the caller's flags (reference-data/, directory/, flags/).
export const countryNotFound = () => notFound("Invalid country code.");
export const searchTermMissing = () => badRequest("No search term");
export const userCannotBeFound = () => notFound("User cannot be found");
export const organizationOwnerNotFound = () => notFound("Organization owner not found");
export const invitationNotFound = () => notFound("Invitation not found");
export const flagsInvalid = () => badRequest("No valid data submitted");
export const tooManyFlagsInRequest = (max: number) => badRequest(`At most ${max} flags can be set in one request`);
export const tooManyFlags = (max: number) => badRequest(`A user can have at most ${max} flags`);
export const flagKeyTooLong = (max: number) => badRequest(`Flag keys can be at most ${max} characters`);
export const flagValueTooLong = (max: number) => badRequest(`Flag values can be at most ${max} characters`);

// Roles and permissions (roles/).
export const productInvalid = () => badRequest("Invalid product_id");
export const roleNotFound = () => notFound("Role not found");
export const roleIdInvalid = () => badRequest("Invalid role_id");
export const roleCodeMissing = () => badRequest("code is required");
export const roleCodeInvalid = () => badRequest("code may hold only lower-case letters, digits, '_' and '-'");
export const roleNameMissing = () => badRequest("name is required");
export const roleEntityInvalid = (entities: readonly string[]) => badRequest(`entity must be one of ${entities.join(", ")}`);
export const roleCodeTaken = () => conflict("Role code already exists");
export const systemRoleUnchangeable = () => badRequest("System roles cannot be changed");
export const permissionsInvalid = () => badRequest("permissions must be an array of permission IDs");
export const permissionIdInvalid = (id: unknown) => badRequest(`Invalid permission ID: ${String(id).slice(0, 30)}`);
export const userIdsMissing = () => badRequest("user_ids is required");
export const roleIdsMissing = () => badRequest("role_ids is required");
export const roleOfIdInvalid = (id: bigint | number) => badRequest(`Invalid role ID: ${id}`);
export const entityRolesMissing = () => badRequest("At least one role is required");
export const entityRoleOrganizationMissing = () => badRequest("organization_id is required");
export const entityRoleUserMissing = () => badRequest("user_id is required");
export const systemRoleAssigned = () => badRequest("System roles are an organization user's admin flag and role: set them with PUT /api/v9/organizations/{organization_id}/users/{organization_user_id}");
export const roleEntityNeeds = (entity: string, field: string) => badRequest(`A ${entity} role needs ${field}`);
export const organizationRoleScoped = () => badRequest("An organization role takes no workspace_id or project_id");
export const entityRoleUserInvalid = (user: bigint | number, organization: bigint) => badRequest(userNotInOrganization(user, organization));
export const entityRoleWorkspaceInvalid = (workspace: bigint, organization: bigint) => badRequest(workspaceNotInOrganization(workspace, organization));
export const roleAssignmentConflict = () => conflict("The same roles were being assigned at once; try again");
/** DELETE /roles/...: the answer's message. */
export const ROLE_DELETED = "Role deleted";

// Audit logs (audit-logs/).
export const auditTimeInvalid = (name: "from" | "to") => badRequest(`Invalid '${name}' value: expected an RFC 3339 time`);
export const auditRangeInvalid = () => badRequest("'from' must not be after 'to'");

// Images: avatars and workspace logos (images/).
export const imageMissing = () => badRequest("Missing file: send the image in the form part 'file', or its bytes as base64 in a JSON 'file'");
export const imageInvalidType = () => badRequest("Invalid content type for image");
export const imageNotFound = () => notFound("Image not found");

// Workspace groups, members and preferences (workspace-groups/, workspace-users/, workspace-preferences/).
export const workspaceGroupNotFound = () => notFound("Group was not found");
export const workspaceMemberRoleInvalid = () => badRequest("Invalid role_id.");
export const workspaceMemberAdminAndRole = () => badRequest("Cannot use both admin flags and role_id.");
export const workspaceMemberNotFound = () => badRequest("User does not exist in the workspace.");
export const workspaceUserNotFound = () => badRequest("Workspace user not found/accessible by user");
export const workspaceMemberChangeMissing = () => badRequest("At least one field is required.");
export const workspacePreferenceNotWritable = () => badRequest("The field is not writable");
export const workspacePreferenceInvalid = (name: string) => badRequest(`Invalid value for ${name}`);
export const timeEntryLockNeedsPremium = () => paymentRequired("Workspace needs to have the Locking time entries feature enabled");
export const workspaceUserNotAccessible = () => forbidden("Workspace user is not found or accessible");

// Rates of workspaces and workspace users (rates/), asked by the tracking service's POST/GET
// .../rates: the reference's texts of that route.
export const rateWorkspaceInvalid = () => badRequest("Invalid entity ID");
export const rateWorkspaceUserMissing = () => badRequest("User not found in workspace");
/** The tracking service checks the request first: a level, type or timing it let through is a defect there. */
export const workspaceRateRequestInvalid = (what: string) => badRequest(`Invalid workspace rate request: ${what}`);
