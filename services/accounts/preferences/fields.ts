import type { JsonValue } from "@bufbuild/protobuf";
import { tosAcceptNeededReadOnly } from "../errors.js";

/**
 * The one declaration of the preference fields (the specification's Preferences list): each
 * field's kind, its default, whether it is left out of answers when empty (false, "", 0) and
 * what values it takes. Validation (rules.ts), reading and writing all go through it.
 */

/** What a field holds. */
export type FieldKind =
  /** true or false */
  | "boolean"
  /** text, at most MAX_TEXT characters, or one of `allowed` */
  | "string"
  /** a whole number within `range` (0 ..= 2^31-1 unless declared) */
  | "integer"
  /** a record id, 0 for none */
  | "id"
  /** {key, modifiers} integers, or null for no shortcut */
  | "shortcut"
  /** an object from index ("0", "1", ...) to a rule object */
  | "macos_rules"
  | "windows_rules";

export interface FieldDeclaration {
  kind: FieldKind;
  default: JsonValue;
  /** Left out of answers while empty (false, "", 0). */
  omitEmpty?: boolean;
  /** The only values a string field takes (another is "Value in <name> is invalid"). */
  allowed?: readonly string[];
  /** Smallest and largest value of an integer field. */
  range?: readonly [number, number];
  /** No client may set it: the 400 a client gets. */
  readOnly?: () => Error;
}

/** Longest text a string preference holds. */
export const MAX_TEXT = 255;
/** Most rules in an auto-tracking rule map. */
export const MAX_RULES = 100;

/** The date formats the reference allows (its workspace and report settings list them). */
export const DATE_FORMATS = ["MM/DD/YYYY", "DD-MM-YYYY", "MM-DD-YYYY", "YYYY-MM-DD", "DD/MM/YYYY", "DD.MM.YYYY"] as const;
/** 12-hour and 24-hour clocks: the two time-of-day formats the real clients offer. */
export const TIMEOFDAY_FORMATS = ["h:mm A", "H:mm"] as const;

const bool = (value = false): FieldDeclaration => ({ kind: "boolean", default: value });
const text = (value = ""): FieldDeclaration => ({ kind: "string", default: value });
const integer = (value: number, range?: readonly [number, number]): FieldDeclaration => ({ kind: "integer", default: value, ...(range ? { range } : {}) });
const id = (): FieldDeclaration => ({ kind: "id", default: 0 });
const shortcut = (): FieldDeclaration => ({ kind: "shortcut", default: null });
const omitted = (declaration: FieldDeclaration): FieldDeclaration => ({ ...declaration, omitEmpty: true });

/** Every preference field but `alpha_features` (features.ts), by its exact name. */
export const PREFERENCE_FIELDS: Readonly<Record<string, FieldDeclaration>> = {
  // Booleans.
  activity_timeline_display_activity: bool(true),
  activity_timeline_sync_events: bool(),
  automatic_tagging: bool(),
  autotracking_enabled: bool(),
  cell_swipe_actions_enabled: bool(true),
  duration_format_on_timer_duration_field: bool(),
  edit_popup_integration_timer: bool(),
  extension_send_error_reports: bool(true),
  extension_send_usage_statistics: bool(true),
  focus_app_on_time_entry_started: bool(),
  focus_app_on_time_entry_stopped: bool(),
  haptic_feedback_enabled: bool(true),
  idle_detection_enabled: bool(),
  is_summary_total_view_visible: bool(true),
  keep_mini_timer_on_top: bool(),
  keep_window_on_top: bool(),
  pomodoro_auto_start_break: bool(),
  pomodoro_auto_start_focus: bool(),
  pomodoro_break_start_sound_enabled: bool(true),
  pomodoro_countdown_timer: bool(true),
  pomodoro_enabled: bool(),
  pomodoro_global_sound_enabled: bool(true),
  pomodoro_interval_end_sound: bool(true),
  pomodoro_prevent_screen_lock: bool(),
  pomodoro_session_start_sound_enabled: bool(true),
  pomodoro_show_notifications: bool(true),
  pomodoro_stop_timer_at_interval_end: bool(),
  pomodoro_track_breaks_as_time_entries: bool(),
  project_shortcut_enabled: bool(true),
  record_timeline: bool(),
  reminder_enabled: bool(),
  running_timer_notification_enabled: bool(true),
  send_product_emails: bool(true),
  send_timer_notifications: bool(true),
  send_weekly_report: bool(true),
  show_all_entries: bool(),
  show_changelog: bool(true),
  show_description_in_menu_bar: bool(true),
  show_dock_icon: bool(true),
  show_events_in_calendar: bool(),
  show_project_in_menu_bar: bool(true),
  show_qr_scanner: bool(),
  show_seconds_in_menu_bar: bool(),
  show_timer_in_menu_bar: bool(true),
  show_today_total_in_menu_bar: bool(),
  show_workouts_in_calendar: bool(),
  start_automatically: bool(),
  stop_at_specific_time: bool(),
  stop_automatically: bool(),
  stop_entry_on_shutdown: bool(),
  stopped_timer_notification_enabled: bool(true),
  suggestions_enabled: bool(true),
  tags_shortcut_enabled: bool(true),
  time_entry_ghost_suggestions_enabled: bool(true),
  use_mini_timer: bool(),
  // The trigger of the terms-acceptance dialog: the service sets it, never a client.
  toSAcceptNeeded: { ...bool(), readOnly: tosAcceptNeededReadOnly },

  // Booleans omitted when empty.
  collapseDetailedReportEntries: omitted(bool()),
  collapseTimeEntries: omitted(bool()),
  hide_keyboard_shortcut: omitted(bool()),
  keyboard_shortcuts_enabled: omitted(bool()),
  manualMode: omitted(bool()),
  manualModeOverlaySeen: omitted(bool()),
  reportRounding: omitted(bool()),
  reportsHideWeekends: omitted(bool()),
  seenFollowModal: omitted(bool()),
  seenFooterPopup: omitted(bool()),
  seenProjectDashboardOverlay: omitted(bool()),
  seenServiceButtonModal: omitted(bool()),
  showTimeInTitle: omitted(bool()),
  show_timeline_in_day_view: omitted(bool()),
  show_total_billable_hours: omitted(bool()),
  show_weekend_on_timer_page: omitted(bool()),
  summaryReportDistinctRates: omitted(bool()),
  summaryReportSortAsc: omitted(bool()),
  webTimeEntryStarted: omitted(bool()),
  webTimeEntryStopped: omitted(bool()),

  // Strings.
  activity_timeline_grouping_interval: text("15m"),
  activity_timeline_grouping_method: text("by_app"),
  activity_timeline_recording_level: text("app"),
  calendar_snap_duration: text("15m"),
  calendar_snap_initial_location: text("start"),
  calendar_zoom_level: text("medium"),
  charts_view_type: text("bar"),
  dashboards_view_type: text("summary"),
  date_format: { kind: "string", default: "MM/DD/YYYY", allowed: DATE_FORMATS },
  duration_format: text("improved"),
  inactivity_behavior: text("ask"),
  modify_on_start_time_change: text("duration"),
  // The user's own zone when unset (handlers.ts): the profile's `timezone`.
  pg_time_zone_name: text("UTC"),
  pomodoro_focus_sound: text("bell"),
  remember_last_project: text("off"),
  reminder_days: text("1,2,3,4,5"),
  reminder_period: text("09:00-17:00"),
  running_entry_warning: text("off"),
  sleep_behaviour: text("ask"),
  smart_alerts_option: text("off"),
  stack_times_on_manual_mode_after: text("off"),
  start_shortcut_mode: text("continue"),
  stop_specified_time: text("18:00"),
  summary_total_mode: text("total"),
  time_entry_display_mode: text("list"),
  time_entry_start_stop_input_mode: text("duration"),
  timeofday_format: { kind: "string", default: "h:mm A", allowed: TIMEOFDAY_FORMATS },
  windows_theme: text("system"),

  // Strings omitted when empty.
  decimal_separator: omitted(text()),
  displayDensity: omitted(text()),
  distinctRates: omitted(text()),
  manualEntryMode: omitted(text()),
  offlineMode: omitted(text()),
  projectDashboardActivityMode: omitted(text()),
  reportRoundingDirection: omitted(text()),
  snowballReportRounding: omitted(text()),
  summaryReportAmounts: omitted(text()),
  summaryReportGrouping: omitted(text()),
  summaryReportSortField: omitted(text()),
  summaryReportSubGrouping: omitted(text()),
  theme: omitted(text()),
  timerView: omitted(text()),
  timerViewMobile: omitted(text()),
  visibleFooter: omitted(text()),
  weeklyReportGrouping: omitted(text()),
  weeklyReportValueToShow: omitted(text()),

  // Integers (minutes, hours of the day, counts) and record ids (0: none).
  calendar_visible_hours_end: integer(24, [0, 24]),
  calendar_visible_hours_start: integer(0, [0, 24]),
  default_project_id: id(),
  default_task_id: id(),
  idle_detection_interval_in_minutes: integer(5),
  keyboard_increment_timer_page: integer(5),
  pomodoro_break_interval_in_minutes: integer(5),
  pomodoro_break_project_id: id(),
  pomodoro_break_tag_id: id(),
  pomodoro_focus_interval_in_minutes: integer(25),
  pomodoro_interval_end_volume: integer(100, [0, 100]),
  pomodoro_longer_break_duration_in_minutes: integer(15),
  pomodoro_rounds_before_longer_break: integer(4),
  reminder_interval_in_minutes: integer(15),
  reminder_snoozing_in_minutes: integer(5),
  workout_default_project_id: id(),

  // Integers omitted when empty.
  firstSeenBusinessPromo: omitted(integer(0)),
  reportRoundingStepInMinutes: omitted(integer(0)),

  // Keyboard shortcuts: null until the user sets one.
  macos_show_hide_service_keyboard_shortcut: shortcut(),
  macos_stop_continue_keyboard_shortcut: shortcut(),
  windows_show_hide_service_keyboard_shortcut: shortcut(),
  windows_stop_continue_keyboard_shortcut: shortcut(),
  windows_stop_start_keyboard_shortcut: shortcut(),

  // Auto-tracking rules by index.
  macos_auto_tracking_rules: { kind: "macos_rules", default: {} },
  windows_auto_tracking_rules: { kind: "windows_rules", default: {} },
};

/** Whether a value counts as empty for the fields omitted when empty. */
export function isEmpty(value: JsonValue): boolean {
  return value === false || value === "" || value === 0 || value === null;
}
