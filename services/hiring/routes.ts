import type { ConnectRouter, ServiceImpl } from "@connectrpc/connect";
import { ExportService } from "../../gen/hiring/v1/export_pb.js";
import { HiringAdminService } from "../../gen/hiring/v1/admin_pb.js";
import type { HiringKit } from "./kit.js";
import { openingHandlers } from "./openings/handlers.js";
import { candidateHandlers } from "./candidates/handlers.js";
import { categoryHandlers } from "./categories/handlers.js";
import { tagHandlers } from "./tags/handlers.js";
import { keyHandlers } from "./keys/handlers.js";
import { importHandlers } from "./importing/handlers.js";

/**
 * Every resource of the hiring service, each from its own folder. Resources share the two proto
 * services, and a service is registered once with all its methods, so the resources' parts are
 * joined here; the types make the compiler check that no method is left out.
 */
export function hiringRoutes(kit: HiringKit) {
  const exportService: ServiceImpl<typeof ExportService> = { ...openingHandlers(kit), ...candidateHandlers(kit), ...categoryHandlers(kit), ...tagHandlers(kit) };
  const adminService: ServiceImpl<typeof HiringAdminService> = { ...keyHandlers(kit), ...importHandlers(kit) };
  return (router: ConnectRouter) => {
    router.service(ExportService, exportService);
    router.service(HiringAdminService, adminService);
  };
}
