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
export const notInWorkspace = (field: string, ids: readonly bigint[]) => badRequest(`Invalid ${field}: ${ids.join(", ")} not in the workspace`);
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
export const projectNotOfClient = (projectId: bigint, clientId: bigint) => badRequest(`Project ${projectId} is not a project of client ${clientId}`);
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
export const timeEntryLocked = (before: Date) => forbidden(`Time entries before ${before.toISOString().replace(/\.000Z$/, "Z")} are locked: only workspace admins may change them`);
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

// Reports API v3 and Insights API insights (insights/): the reference's texts where it has them
// (the 400 lists of its comparative, data trends and profitability endpoints).
export const insightResolutionInvalid = (allowed: readonly string[]) => badRequest(`Resolution must be one of [${allowed.join(", ")}]`);
export const insightRangeTooLarge = () => badRequest("Date range too large for given resolution");
export const insightCurrencyRequired = () => badRequest("Currency is required parameter");
export const insightIdsMissing = () => badRequest("At least 1 id required");
export const insightTooManyIds = (max: number) => badRequest(`Maximum ${max} ids allowed`);

// Saved reports (saved-reports/): the reference's texts (its 400, 403 and 404 lists of
// /api/v9/workspaces/{workspace_id}/reports/shared...).
export const savedReportNotFound = (id: bigint | number) => notFound(`Report ID ${id} not found/accessible.`);
export const savedReportNameBlank = () => badRequest("saved report name field can't be blank");
export const savedReportFixedDaterangeBlank = () => badRequest("saved report fixed_daterange can't be blank");
export const savedReportPublicBlank = () => badRequest("saved report public can't be blank");
/** POST's wording. */
export const savedReportTypeInvalid = () => badRequest("parameter report_type is invalid or blank");
/** PUT's wording (the reference words it apart from POST's). */
export const savedReportTypeInvalidOnUpdate = () => badRequest("parameter report_type invalid or blank");
/** Parameters of a report's body that its report could not read (a list that is no list ...). */
export const savedReportParamsInvalid = (message: string) => badRequest(`Invalid params: ${message}`);
/** One report of a PUT of several, refused: `message` is the single PUT's text. */
export const savedReportFailed = (id: bigint | number, message: string) => badRequest(`Report ID ${id} failed with: ${message}`);
export const savedReportsMissing = (found: number, requested: number) => notFound(`Some IDs were not found: Only ${found} Saved Reports found for ${requested} given IDs.`);
export const publicReportsAdminsOnly = () => forbidden("Public reports can be saved only by admins.");
export const savedReportListParameterInvalid = (name: string) => badRequest(`Invalid parameter ${name}.`);
/** A PUT of several whose body is no list of reports (the reference's first 400). */
export const savedReportsJsonInvalid = () => badRequest("JSON is not valid");
export const savedReportsTooMany = (max: number) => badRequest(`At most ${max} reports can be changed at once`);
/** One report of a PUT of several that the codec or the declared limits refuse: their message. */
export const savedReportInputInvalid = (message: string) => badRequest(message);

// Running a saved report (/reports/api/v3/shared/{report_token}): the reference's texts.
/** No report has the token, or a private one the caller may not run (the same answer: a token tells nothing more). */
export const sharedReportTokenInvalid = () => forbidden("Invalid token");
export const sharedReportOwnerGone = () => forbidden("Workspace was not found or the report's owner is no longer active on it");
export const sharedReportTypeMissing = () => badRequest("report_type does not exist in params");
export const sharedReportPeriodUnsupported = () => badRequest("The report period is not supported");

// Scheduled reports (scheduled-reports/): the reference's texts.
export const scheduledReportNotFound = () => notFound("Scheduled report not found.");
export const bookmarkNotFound = () => badRequest("Bookmark not found.");
export const recipientsUnusable = () => badRequest("Unable to use all requested recipients.");
export const noUsableRecipients = () => badRequest("No usable recipients found.");
export const scheduleFrequencyInvalid = () => badRequest("Invalid scheduled report frequency. Must be one of: 1 (daily), 7 (weekly) or 30 (monthly).");

// Favorites (favorites/): the reference's texts (its 400 and 403 lists of /me/favorites).
export const favoriteParameterInvalid = (parameter: string) => badRequest(`the parameter '${parameter}' is invalid`);
export const favoriteAttributesInvalid = (attributes: string) => badRequest(`favorite attributes are not valid: ${attributes}`);
export const favoriteConstraintsUnmet = (constraints: string) => badRequest(`favorite constraints were not met: ${constraints}`);
export const favoriteResourcesDenied = (userId: bigint, resources: string) => forbidden(`user ${userId} has no access to all resources: ${resources}`);
/** Not there, or already deleted. */
export const favoriteIdInvalid = (id: bigint) => badRequest(`${id} given favorite ID is invalid`);
export const favoriteNotOwned = (userId: bigint, id: bigint) => forbidden(`user ${userId} is not the owner of favorite ID ${id}`);

// Bulk reads and changes by id lists (issue 22, part B2): clients' data, tags' bulk delete, tasks' bulk patch.
export const clientIdsInvalid = () => badRequest("Invalid client_ids");
export const tagIdsNotInWorkspace = () => badRequest("Some tag IDs do not belong to workspace.");
export const INVALID_TASK_IDS = "Invalid value as task IDs";

// Projects' pins, periods and statistics (issue 22, part B2).
export const projectNotAccessible = () => notFound("Project not found/accessible");
export const pinLimitPaid = (max: number) => forbidden(`Cannot pin more projects: Max ${max} pins for paid plans`);
export const pinLimitFree = () => forbidden("Cannot pin more projects: Max 1 pin for free plans");
export const periodsRangeInvalid = () => badRequest("end_date must not be before start_date");

// Goals (goals/): the reference's texts where it has them (its 400, 403 and 404 of
// /workspaces/{workspace_id}/goals); the field rules' own where it is silent.
export const goalNotFound = () => notFound("goal not found for this user");
export const goalNotAccessible = () => badRequest("Goal not found or not accessible by the user");
export const goalNotDeletable = () => badRequest("Goal already deleted or was not created by this user");
export const goalResourcesDenied = () => forbidden("User doesn't belong to given workspace, project or task. It also fails if project or task don't belong to workspace");
export const teamGoalsDenied = () => forbidden("User has no access to team goals feature");
export const goalFieldRequired = (field: string) => badRequest(`${field} is required`);
export const goalFieldChoice = (field: string, allowed: readonly string[]) => badRequest(`${field} must be one of ${allowed.join(", ")}`);
export const goalTargetInvalid = () => badRequest("target_seconds must be greater than 0");
export const goalTagsInvalid = () => badRequest("tag_ids must be tags of the workspace");
export const goalNotifiedAtInvalid = () => badRequest("last_notified_at must be an RFC 3339 time");

// iCal (ical/): the reference's texts.
export const calendarNotFound = () => notFound("Not found");
export const calendarPaidFeature = () => forbidden("Paid feature");

// Rates (rates/): the reference's texts where it has them.
export const ratePayloadMissing = () => badRequest("Request payload must be informed");
export const rateLevelInvalid = () => badRequest("Invalid level: it should be workspace, workspace_user, project, project_user or task");
/** Workspace and workspace user rates are the accounts service's; this service keeps the others. */
export const rateEntityInvalid = () => badRequest("Invalid entity ID");
export const rateTaskMissing = () => badRequest("Task not found in workspace");
export const rateAmountInvalid = () => badRequest("amount must be greater than 0");
export const rateTypeInvalid = () => badRequest("type must be one of billable_rates, labor_rates");
export const rateModeOrStartMissing = () => badRequest("mode or start must be informed");
export const rateModeInvalid = () => badRequest("mode must be one of override-all, override-current, start-today");
export const rateStartInvalid = () => badRequest("start must be a valid date time");
export const rateAccessDenied = () => forbidden("User cannot access billable rate(s).");

// Timesheets (timesheets/): the reference's texts (the 400, 403 and 404 lists of
// /workspaces/{workspace_id}/timesheet_setups and .../timesheets).
export const timesheetInvalidUserId = () => badRequest("Invalid user ID");
export const timesheetTooManyUserIds = () => badRequest("Too many user IDs");
export const timesheetInvalidDate = () => badRequest("Invalid date");
export const timesheetInvalidPeriodicity = () => badRequest("Invalid periodicity");
export const timesheetUserNotInWorkspace = () => badRequest("User not in workspace");
export const timesheetApproverNotAdmin = () => badRequest("User is not an admin in the workspace");
export const timesheetApproverIsMember = () => badRequest("Approver cannot be member");
export const timesheetMemberHasSetup = () => badRequest("Member already has a timesheet setup");
export const timesheetEndDatePeriodicity = () => badRequest("End date must respect periodicity");
export const timesheetSetupNotFound = () => notFound("Timesheet setup was not found");
export const timesheetSetupIdInvalid = () => badRequest("Invalid setup ID");
export const timesheetSetupInUse = () => badRequest("Failed to delete timesheet setup, member has approved, rejected or submitted timesheets");
export const timesheetInvalidId = () => badRequest("Invalid ID");
export const timesheetInvalidStatus = () => badRequest("Invalid status");
export const timesheetCommentNotRejection = () => badRequest("Invalid status for rejection comment");
export const timesheetInvalidTransition = () => badRequest("Invalid timesheet transition");
export const timesheetDenied = () => forbidden("User does not have access to this resource");
/** A reminder day or time the setup cannot read (the reference is silent). */
export const timesheetReminderInvalid = (field: string) => badRequest(`Invalid ${field}`);
/** A batch body that is no array of timesheets (the reference is silent). */
export const timesheetBodyInvalid = (most: number) => badRequest(`Expected an array of at most ${most} timesheets`);

// Time entry invitations (time-entry-invitations/): the reference's texts where it has them.
export const invitationIdInvalid = () => badRequest("invalid time_entry_invitation_id");
export const invitationActionInvalid = () => badRequest("Invalid action: expected accept or reject");
export const sharingWorkspaceInvalid = () => badRequest("Invalid workspace");
/** A body that is no array of {time_entry_id, workspace_id} (the reference is silent). */
export const sharingBodyInvalid = () => badRequest("Expected an array of {time_entry_id, workspace_id}");

// Exports (exports/): the reference's texts (the 400s of /me/export and /workspaces/{workspace_id}/exports).
export const exportInProgress = () => badRequest("Cannot start another export until current one is complete");
export const exportNothingSelected = () => badRequest("You must select at least one object to export");
export const workspaceExportMissing = () => badRequest("Workspace export data cannot be found or is expired");
export const userExportMissing = () => badRequest("User export data cannot be found or is expired");
/** A body that is no JSON array of names (the reference is silent). */
export const exportObjectsInvalid = () => badRequest("Expected a JSON array of the names of the objects to export");
/** An object name the workspace ZIP has no file for (the reference is silent). */
export const exportObjectUnknown = (name: string, known: readonly string[]) => badRequest(`Unknown export object '${name}': expected some of ${known.join(", ")}`);

// Imports (imports/): a file refused names the file, its line or entry, and the reason.
export const importFileInvalid = (where: string, reason: string) => badRequest(`${where}: ${reason}`);
export const importNoFiles = () => badRequest("An import needs at least one file");
export const importNotFound = () => notFound("Import not found");
export const importNotUploading = () => badRequest("The import's files are complete: start another import to add files");
export const importTooLarge = (most: number) => badRequest(`The import's files are larger than ${most} bytes together`);
export const importTimeZoneInvalid = () => badRequest("Invalid time_zone");
export const importNoAdmin = () => badRequest("The workspace has no active admin to import as");
/** Why a workspace export failed, in its record's `error_message` (ours: the reference is silent). */
export const exportRequesterNotAdmin = () => forbidden("The requester is no longer an admin of the workspace");
export const exportFailed = () => badRequest("The export could not be written");
