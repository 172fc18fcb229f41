import { badRequest, notFound, paymentRequired } from "../../lib/errors.js";

/**
 * Every message the notifier answers, named once: the time-tracking webhooks API's (in its own
 * words) and the internal admin RPCs'.
 */

// Subscriptions: the webhooks API.
export const subscriptionNotFoundIn = (subscriptionId: bigint | string, workspaceId: bigint | string) => notFound(`subscription ${subscriptionId} for workspace ${workspaceId} was not found`);
export const descriptionTaken = () => badRequest("Subscription description must be unique in the workspace");
export const descriptionEmpty = () => badRequest("Subscription description must not be empty");
export const webhookLimitReached = (max: number) => paymentRequired(`The workspace has reached its maximum of ${max} webhooks`);
export const enabledRequired = () => badRequest("Field 'enabled' is required");
export const eventFiltersEmpty = () => badRequest("The list of event filters must not be empty");
export const eventFilterIncomplete = () => badRequest("Event filters must name an entity and an action");
export const eventFilterEntityUnsupported = (entity: string) => badRequest(`Event filter entity '${entity}' is not supported`);
export const eventFilterActionUnsupported = (entity: string, action: string) => badRequest(`Event filter action '${action}' is not supported for entity '${entity}'`);
export const eventFiltersRepeated = () => badRequest("The list of event filters must not contain duplicates");
export const eventFilterLimit = (max: number) => paymentRequired(`A webhook in this workspace may have at most ${max} event filters`);
export const callbackUrlEmpty = () => badRequest("URL callback must not be empty");

// Subscriptions: the internal admin RPCs.
export const subscriptionNotFound = (id: bigint | string) => notFound(`subscription ${id} not found`);
export const internalDescriptionTaken = () => badRequest("a subscription with this description exists in the workspace");
export const noServiceFamily = () => badRequest("service must be hiring, tracking or accounts");
export const workspaceIdRequired = () => badRequest("workspace_id is required");
export const internalFiltersRepeated = () => badRequest("event filters must not repeat");

// Notifications: the internal admin RPCs.
export const notificationNotFound = (id: bigint | string) => notFound(`notification ${id} not found`);
export const notReplayable = (id: bigint | string, state: string) => badRequest(`notification ${id} is ${state}; only a given-up notification can be replayed`);
export const stateInvalid = () => badRequest("state must be pending, delivered or given_up");
export const limitNegative = () => badRequest("limit must not be negative");

// Targets: why a callback URL may not be a webhook target (the texts are delivery/target.ts's rules).
export const targetRefused = (problem: string) => badRequest(problem);
