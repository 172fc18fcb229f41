/**
 * The v9 operations a self-hosted installation does not offer, answered `501` with a JSON string that
 * says so (the time-tracking API's error format), so a client learns why instead of guessing from a
 * 404. One declaration: the gateway serves these routes and `/openapi.json` lists them with their 501.
 * The list is the real API's (track-api-v9.swagger.json) operations of each kind, by method and path.
 */

export interface UnavailableGroup {
  /** What the operations belong to, as the answer names it. */
  what: string;
  operations: readonly (readonly [method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string])[];
}

export const UNAVAILABLE: readonly UnavailableGroup[] = [
  {
    what: "the real service's billing (subscriptions, invoices, plans, payments, purchase orders, promo codes, ownership transfers)",
    operations: [
      ["GET", "/api/v9/organizations/{organization_id}/invoices/{invoice_uid}.pdf"],
      ["GET", "/api/v9/organizations/{organization_id}/owner/transfer"],
      ["POST", "/api/v9/organizations/{organization_id}/owner/transfer"],
      ["GET", "/api/v9/organizations/{organization_id}/owner/transfer/{transfer_id}"],
      ["POST", "/api/v9/organizations/{organization_id}/owner/transfer/{transfer_id}/{action}"],
      ["GET", "/api/v9/organizations/{organization_id}/payment_records"],
      ["GET", "/api/v9/organizations/{organization_id}/plans"],
      ["GET", "/api/v9/organizations/{organization_id}/plans/{plan_id}"],
      ["DELETE", "/api/v9/organizations/{organization_id}/subscription"],
      ["GET", "/api/v9/organizations/{organization_id}/subscription"],
      ["POST", "/api/v9/organizations/{organization_id}/subscription"],
      ["PUT", "/api/v9/organizations/{organization_id}/subscription"],
      ["POST", "/api/v9/organizations/{organization_id}/subscription/cancellation_feedback"],
      ["GET", "/api/v9/organizations/{organization_id}/subscription/customer"],
      ["POST", "/api/v9/organizations/{organization_id}/subscription/customer"],
      ["PUT", "/api/v9/organizations/{organization_id}/subscription/customer"],
      ["POST", "/api/v9/organizations/{organization_id}/subscription/discount_request"],
      ["GET", "/api/v9/organizations/{organization_id}/subscription/feature_upsell"],
      ["GET", "/api/v9/organizations/{organization_id}/subscription/invoice_summary"],
      ["DELETE", "/api/v9/organizations/{organization_id}/subscription/promocode"],
      ["POST", "/api/v9/organizations/{organization_id}/subscription/promocode"],
      ["GET", "/api/v9/organizations/{organization_id}/subscription/purchase_orders/{purchase_order_uid}.pdf"],
      ["POST", "/api/v9/organizations/{organization_id}/subscription/referral_bonus"],
      ["POST", "/api/v9/organizations/{organization_id}/subscription/setup_intent"],
      ["POST", "/api/v9/organizations/{organization_id}/subscription/trial"],
      ["GET", "/api/v9/subscriptions/plans"],
      ["GET", "/api/v9/workspaces/plans"],
      ["GET", "/api/v9/workspaces/{workspace_id}/invoices"],
      ["POST", "/api/v9/workspaces/{workspace_id}/invoices"],
      ["GET", "/api/v9/workspaces/{workspace_id}/invoices/{invoice_id}.pdf"],
      ["DELETE", "/api/v9/workspaces/{workspace_id}/invoices/{user_invoice_id}"],
      ["GET", "/api/v9/workspaces/{workspace_id}/payment_receipts/{payment_id}.pdf"],
      ["GET", "/api/v9/workspaces/{workspace_id}/subscription"],
      ["GET", "/api/v9/workspaces/{workspace_id}/subscription/purchase_orders/{purchase_order_id}.pdf"],
    ],
  },
  {
    what: "single sign-on and external identity providers (SAML, SSO profiles)",
    operations: [
      ["GET", "/api/v9/auth/saml2/login"],
      ["POST", "/api/v9/auth/saml2/login/{workspace_id}"],
      ["POST", "/api/v9/me/enable_sso"],
      ["GET", "/api/v9/workspaces/{workspace_id}/linked_sso_profiles"],
      ["DELETE", "/api/v9/workspaces/{workspace_id}/linked_sso_profiles/{sso_profile_id}"],
      ["PUT", "/api/v9/workspaces/{workspace_id}/linked_sso_profiles/{sso_profile_id}"],
    ],
  },
  {
    what: "third-party integrations (calendars and other products)",
    operations: [
      ["GET", "/api/v9/integrations/calendar"],
      ["GET", "/api/v9/integrations/calendar/calendars/selected"],
      ["GET", "/api/v9/integrations/calendar/callback/{provider}"],
      ["GET", "/api/v9/integrations/calendar/events"],
      ["POST", "/api/v9/integrations/calendar/events/details-suggestion"],
      ["POST", "/api/v9/integrations/calendar/events/update"],
      ["GET", "/api/v9/integrations/calendar/events/{event_id}/details-suggestion"],
      ["GET", "/api/v9/integrations/calendar/setup"],
      ["DELETE", "/api/v9/integrations/calendar/{integration_id}"],
      ["PUT", "/api/v9/integrations/calendar/{integration_id}"],
      ["GET", "/api/v9/integrations/calendar/{integration_id}/calendars"],
      ["POST", "/api/v9/integrations/calendar/{integration_id}/calendars/update"],
      ["PATCH", "/api/v9/integrations/calendar/{integration_id}/calendars/{calendar_id}"],
      ["GET", "/api/v9/integrations/calendar/{integration_id}/calendars/{id_calendar}/events"],
    ],
  },
  {
    what: "the plumbing of the real service's own apps (push, mobile and desktop sign-in, product mail, feedback, sync, status)",
    operations: [
      ["GET", "/api/v9/desktop_login"],
      ["POST", "/api/v9/desktop_login_tokens"],
      ["POST", "/api/v9/feedback"],
      ["POST", "/api/v9/feedback/web"],
      ["GET", "/api/v9/keys"],
      ["POST", "/api/v9/me/accept_tos"],
      ["POST", "/api/v9/me/disable_product_emails/{disable_code}"],
      ["POST", "/api/v9/me/disable_weekly_report/{weekly_report_code}"],
      ["GET", "/api/v9/me/notifications"],
      ["POST", "/api/v9/me/notifications/{notification_id}/seen"],
      ["DELETE", "/api/v9/me/push_services"],
      ["GET", "/api/v9/me/push_services"],
      ["POST", "/api/v9/me/push_services"],
      ["POST", "/api/v9/mobile/feedback"],
      ["GET", "/api/v9/organizations/{organization_id}/segmentation"],
      ["PUT", "/api/v9/organizations/{organization_id}/segmentation"],
      ["POST", "/api/v9/session/{product_id}/organizations/{organization_id}/workspaces/{workspace_id}/users"],
      ["GET", "/api/v9/shared-project/{hash}/project"],
      ["GET", "/api/v9/shared-project/{hash}/time-entries"],
      ["POST", "/api/v9/smail/contact"],
      ["POST", "/api/v9/smail/demo"],
      ["POST", "/api/v9/smail/meet"],
      ["GET", "/api/v9/status"],
      ["GET", "/api/v9/sync-server/me/goals"],
      ["DELETE", "/api/v9/timeline"],
      ["GET", "/api/v9/timeline"],
      ["POST", "/api/v9/timeline"],
      ["POST", "/api/v9/warehouse/aggregations/generate"],
    ],
  },
];

/** The answer's text for an operation of the group. */
export const unavailableMessage = (group: UnavailableGroup) => `Not available in a self-hosted installation: ${group.what}`;

/** A template's `{name}` variables in Fastify's `:name` form (`{invoice_uid}.pdf` -> `:invoice_uid.pdf`). */
export const fastifyPath = (template: string) => template.replace(/\{([a-z_]+)\}/g, ":$1");

/** The operations as OpenAPI path items: each answers 501 with its message. */
export function unavailablePaths(): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const group of UNAVAILABLE) {
    for (const [method, path] of group.operations) {
      const parameters = [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
      (paths[path] ??= {})[method.toLowerCase()] = {
        operationId: `Unavailable.${method}${path}`,
        tags: ["Not available self-hosted"],
        security: [],
        parameters,
        responses: { "501": { description: unavailableMessage(group), content: { "application/json": { schema: { type: "string", const: unavailableMessage(group) } } } } },
      };
    }
  }
  return paths;
}
