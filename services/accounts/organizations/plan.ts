/**
 * The organization's plan, as `pricing_plan_id` answers it; operators set it (track:organization
 * plan). The plan is the organization's alone: every workspace of a paid organization is premium.
 */
export const PRICING_PLAN = { free: 0, paid: 1 } as const;

export const isPaid = (organization: { pricing_plan_id: number }) => organization.pricing_plan_id !== PRICING_PLAN.free;

/** The `pricing_plan_id` of a paid or a free organization. */
export const pricingPlan = (paid: boolean) => (paid ? PRICING_PLAN.paid : PRICING_PLAN.free);
