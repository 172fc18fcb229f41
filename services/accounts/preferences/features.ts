/**
 * The alpha features that exist: every answer lists each of them with the user's `enabled`
 * flag (off until the user switches it on). A feature is added here; one withdrawn keeps its
 * row with `deleted_at`, so clients that know its code still read it (switched off).
 */
export interface AlphaFeature {
  alpha_feature_id: number;
  code: string;
  /** Omitted from answers when empty. */
  description: string;
  /** RFC 3339; omitted from answers when empty. */
  deleted_at: string;
}

export const ALPHA_FEATURES: readonly AlphaFeature[] = [
  { alpha_feature_id: 1, code: "calendar_view", description: "Calendar view of time entries", deleted_at: "" },
  { alpha_feature_id: 2, code: "timeline", description: "Activity timeline recorded by the desktop clients", deleted_at: "" },
  { alpha_feature_id: 3, code: "goals", description: "Tracking goals", deleted_at: "" },
  { alpha_feature_id: 4, code: "new_reports", description: "", deleted_at: "" },
  { alpha_feature_id: 5, code: "legacy_editor", description: "The previous time entry editor", deleted_at: "2025-06-30T00:00:00Z" },
];
