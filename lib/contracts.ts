import type { DescFile } from "@bufbuild/protobuf";
import { file_hiring_v1_export } from "../gen/hiring/v1/export_pb.js";
import { file_hiring_v1_admin } from "../gen/hiring/v1/admin_pb.js";
import { file_accounts_v1_accounts } from "../gen/accounts/v1/accounts_pb.js";
import { file_accounts_v1_workspaces } from "../gen/accounts/v1/workspaces_pb.js";
import { file_accounts_v1_organizations } from "../gen/accounts/v1/organizations_pb.js";
import { file_accounts_v1_invitations } from "../gen/accounts/v1/invitations_pb.js";
import { file_accounts_v1_groups } from "../gen/accounts/v1/groups_pb.js";
import { file_accounts_v1_workspace_users } from "../gen/accounts/v1/workspace_users_pb.js";
import { file_tracking_v1_clients } from "../gen/tracking/v1/clients_pb.js";
import { file_notifier_v1_webhooks } from "../gen/notifier/v1/webhooks_pb.js";
import { file_notifier_v1_tracking_webhooks } from "../gen/notifier/v1/tracking_webhooks_pb.js";

/** Every contract the gateway looks through for REST routes. */
export const PROTO_FILES: DescFile[] = [
  file_hiring_v1_export,
  file_hiring_v1_admin,
  file_accounts_v1_accounts,
  file_accounts_v1_workspaces,
  file_accounts_v1_organizations,
  file_accounts_v1_invitations,
  file_accounts_v1_groups,
  file_accounts_v1_workspace_users,
  file_tracking_v1_clients,
  file_notifier_v1_webhooks,
  file_notifier_v1_tracking_webhooks,
];
