import { badRequest, conflict, forbidden, notFound, paymentRequired } from "../../lib/errors.js";

/**
 * Every message the tracking service answers, named once (OpenFGA's pkg/server/errors/errors.go).
 * An error is a constructor (a fresh ConnectError for each throw) that carries its status: without
 * arguments for a fixed text, with the values its text names otherwise. The few texts that
 * lib/bulk-patch.ts turns into its 400 are plain strings. The wording is the reference API's: change
 * none without changing what clients read. Tests compare answers with `name().rawMessage`.
 */

// Several resources: names, the path's workspace, ids of other resources, premium fields, list parameters.
export const nameTaken = () => badRequest("Name has already been taken");
export const widMismatch = () => badRequest("wid does not match the workspace of the path");
export const workspaceIdMismatch = () => badRequest("workspace_id does not match the workspace of the path");
/** A project that is not there, deleted, or hidden from the caller. */
export const invalidProject = () => badRequest("Invalid project_id");
export const invalidTask = () => badRequest("Invalid task_id");
export const invalidUser = () => badRequest("Invalid user_id");
/** A query parameter or id list the service cannot read (`include_archived`, `project_ids`, `user_ids`). */
export const invalidValue = (name: string) => badRequest(`Invalid ${name}`);
/** Users (or groups) a body names that are no members of (not assigned to) the workspace. */
export const notInWorkspace = (field: string, ids: readonly number[]) => badRequest(`Invalid ${field}: ${ids.join(", ")} not in the workspace`);
export const premiumNeeded = (field: string) => paymentRequired(`premium needed to use ${field}`);
export const activeFilterInvalid = () => badRequest("Invalid value for active: expected true, false or both");
export const sortOrderInvalid = () => badRequest("Invalid sort_order: expected ASC or DESC");
export const dateInvalid = (field: string) => badRequest(`${field} must be a date in the form YYYY-MM-DD`);

// Clients.
export const clientNotFound = (id: bigint) => notFound(`No client with ID ${id} was found`);
/** Updating a client that is not there (the reference words it apart from the other RPCs). */
export const clientMissing = () => notFound("Client doesn't exist in the workspace");
export const clientStatusInvalid = () => badRequest("Client status is invalid");
export const clientNameEmpty = () => badRequest("Client name cannot be empty");
/** Restoring named projects and all projects at once. */
export const restoreChoiceAmbiguous = () => badRequest("Bad Request");

// Projects.
export const projectClientMissing = (clientId: bigint, workspaceId: bigint) => badRequest(`Client with the ID ${clientId} isn't present in workspace ${workspaceId}`);
export const projectNotOfClient = (projectId: number, clientId: number) => badRequest(`Project ${projectId} is not a project of client ${clientId}`);
export const projectNameEmpty = () => badRequest("Project name must not be empty");
export const projectColorInvalid = (raw: string) => badRequest(`Error in validating color '${raw}'. Project color must be a hex value in the form of #[0-9a-f]{6}.`);
export const projectEndBeforeStart = () => badRequest("end_date must not be earlier than start_date");
export const currencyInvalid = () => badRequest("currency must be a three-letter code");
export const rateChangeModeInvalid = (modes: readonly string[]) => badRequest(`rate_change_mode must be one of ${modes.join(", ")}`);
export const recurringPeriodInvalid = (periods: readonly string[]) => badRequest(`recurring_parameters.period must be one of ${periods.join(", ")}`);
export const customPeriodMissing = () => badRequest("recurring_parameters.custom_period is required when period is custom");
export const recurringParametersMissing = () => badRequest("recurring_parameters are required for a recurring project");
export const amountNegative = (field: string) => badRequest(`${field} must not be negative`);
export const templateInvalid = () => badRequest("Invalid template_id");
export const projectCreationAdminsOnly = () => forbidden("Only admins may create projects in this workspace");
export const projectStatusInvalid = (given: string, statuses: readonly string[]) => badRequest(`Invalid status '${given}': expected one of ${statuses.join(", ")}`);
export const projectSortFieldInvalid = (fields: readonly string[]) => badRequest(`Invalid sort_field: expected one of ${fields.join(", ")}`);
export const deletionModeInvalid = () => badRequest("Invalid teDeletionMode: expected delete or unassign");
/** A PATCH's project id list (a text: lib/bulk-patch.ts makes the 400). */
export const INVALID_PROJECT_IDS = "Invalid value as project IDs";
/** A PATCH value for `/end_date` or `/currency` that is neither a string nor null (a text, as above). */
export const expectsStringOrNull = (path: string) => `${path} expects a string or null`;

// Project users.
export const projectUserTaken = () => badRequest("Project user already exists");
/** Not there, or of a project the caller may not change: the reference's 400, not a 404. */
export const projectUserNotFound = () => badRequest("Project user not found/accessible");
export const projectUserChangeMissing = () => badRequest("Missing data");
export const tooManyIds = (name: string, max: number) => badRequest(`${name} cannot exceed ${max} elements`);
/** A PATCH's project user id list (a text: lib/bulk-patch.ts makes the 400). */
export const INVALID_PROJECT_USER_IDS = "Invalid value as user IDs";

// Project groups.
export const invalidGroup = () => badRequest("Invalid group_id");
export const projectGroupTaken = () => badRequest("Project group already exists");
export const projectGroupNotFound = () => notFound("Project group not found");
export const projectIdsMissing = () => badRequest("project_ids is required");

// Tasks.
export const archivedProjectTasks = () => badRequest("Can not change tasks of archived project");
export const taskNameEmpty = () => badRequest("Task name must not be empty");
export const taskSortFieldInvalid = () => badRequest("Invalid sort_field: expected name or created_at");

// Tags.
export const tagNotFound = () => notFound("Tag was not found");
export const tagNameBlank = () => badRequest("tag name can't be blank");
export const tagNameTaken = (name: string) => badRequest(`a tag with the name '${name}' already exists`);
export const tagManagementAdminsOnly = () => forbidden("Only organization or workspace administrators may manage tags in this workspace.");

// Time entries.
export const timeEntryNotFound = () => notFound("Time entry not found");
/** `GET /me/time_entries/{id}`: not one of the caller's live entries. */
export const resourceNotFound = () => notFound("Resource can not be found");
export const timeEntryIdInvalid = () => badRequest("Invalid time_entry_id");
export const timeEntryStopped = () => conflict("Time entry already stopped");
/** Concurrent changes kept colliding on a unique key after the retries. */
export const timeEntryChangedConcurrently = () => conflict("The time entry changed at the same time; try again");
export const createdWithMissing = () => badRequest("created_with needs to be provided a valid string");
export const startMissing = () => badRequest("start needs to be provided");
/** A new entry whose change carries no start (the body's `start` is checked before: startMissing). */
export const startNotGiven = () => badRequest("start must be given");
export const entryTimeInvalid = (field: string) => badRequest(`Invalid ${field}: expected an RFC 3339 time like 2024-12-13T00:18:26Z`);
export const startDateInvalid = () => badRequest("Invalid start_date: expected YYYY-MM-DD");
export const runningWithStop = () => badRequest("A running time entry (negative duration) cannot have a stop time");
export const stopBeforeStart = () => badRequest("Stop time must be after start time");
export const durationMismatch = () => badRequest("start + duration must equal stop");
export const durationBeyondRange = () => badRequest("Invalid duration: the entry would end after 9999");
/** The workspace's time entry constraints: `part` is description, project, task or tag. */
export const constraintUnmet = (part: string) => badRequest(`The workspace requires a ${part} for time entries`);
export const tagActionInvalid = () => badRequest("tag_action must be add or delete");
export const listBoundInvalid = (field: string) => badRequest(`Invalid ${field}: expected YYYY-MM-DD or an RFC 3339 time`);
export const listDatesUnpaired = () => badRequest("start_date and end_date must be given together");
export const listDatesReversed = () => badRequest("end_date must be after start_date");
export const otherUsersAdminsOnly = () => forbidden("Only workspace admins may track time for other users");
export const taskNotOfProject = () => badRequest("Task does not belong to the project");
export const tagIdsInvalid = () => badRequest("Invalid tag_ids");
export const sharedWithInvalid = () => badRequest("Invalid shared_with_user_ids: each must be a member of the workspace");
/** A PATCH's time entry id list (a text: lib/bulk-patch.ts makes the 400). */
export const INVALID_TIME_ENTRY_IDS = "Invalid time entry IDs";
/** PATCH values a path does not take (texts, as above). */
export const expectsIds = (path: string) => `${path} expects an array of IDs`;
export const expectsStrings = (path: string) => `${path} expects an array of strings`;
export const expectsId = (path: string) => `${path} expects an ID`;
export const expectsIdOrNull = (path: string) => `${path} expects an ID or null`;
export const expectsTime = (path: string) => `${path} expects an RFC 3339 time`;

// Alerts.
/** Not there or not the workspace's: the reference answers 403. */
export const alertNotFound = () => forbidden("Alert not found or not accessible");
export const alertIdInvalid = () => badRequest("invalid 'alert_id' passed in URL");
/** `what` in the reference's words: source kind, project, threshold type, thresholds, receivers. */
export const alertFieldBlank = (what: string) => badRequest(`${what} can't be blank`);
export const alertFieldOutOfRange = (what: string) => badRequest(`${what} out of range`);
export const alertProjectUnsupported = () => badRequest("project not supported for this source kind");

// Track reminders.
export const reminderNotFound = () => notFound("Track reminder not found");
export const frequencyMissing = () => badRequest("frequency is required");
export const frequencyInvalid = () => badRequest("frequency should be either 1 or 7");
export const thresholdMissing = () => badRequest("threshold is required");
export const thresholdInvalid = (most: number) => badRequest(`threshold should be a whole number of hours from 1 to ${most}`);
export const recipientsMissing = () => badRequest("One of user_ids or group_ids is required");

// Reports API v3 helpers (report-filters/): the reference's texts where it has them.
export const tooManyPostedIds = (max: number) => badRequest(`Maximum count of posted IDs is ${max}`);
export const noFilterParameter = () => badRequest("At least one parameter must be set");
export const summaryProjectIdInvalid = () => badRequest("Invalid project id");
/** A project that is not there, deleted, or hidden from the caller. */
export const summaryProjectNotAccessible = () => forbidden("project not found or not accessible");
export const rangeParameterRequired = (name: string) => badRequest(`The ${name} parameter is required`);
export const rangeParameterFormat = (name: string) => badRequest(`Invalid ${name} format`);
export const rangeOutOfBounds = (name: string, first: string, last: string) => badRequest(`${name} should be within ${first} to ${last}`);
export const rangeReversed = () => badRequest("end_date must not be earlier than start_date");

// Reports API v3 (reports/): the reference's texts where it has them (the 400 and 402 lists of
// its summary, detailed and weekly endpoints); the range's texts are the helpers' above.
export const reportFeatureNeeded = () => paymentRequired("Workspace needs to have this feature enabled");
export const reportValueNotAllowed = (parameter: string, allowed: readonly string[]) => badRequest(`Invalid '${parameter}' value, allowed values are: '${allowed.join("', '")}'`);
export const reportParameterUnsupported = (parameter: string) => badRequest(`The '${parameter}' parameter is not supported`);
export const reportRangeTooLong = (days: number) => badRequest(`The date range must not be longer than ${days} days`);
/** An id list with something other than ids (and, where "without" is meant, null). */
export const reportIdsInvalid = (parameter: string) => badRequest(`Invalid '${parameter}' value, expected a list of IDs`);
export const reportNegative = (parameter: string) => badRequest(`Invalid '${parameter}' value, expected a number not below 0`);
export const reportDurationsReversed = () => badRequest("max_duration_seconds should be greater than min_duration_seconds");
