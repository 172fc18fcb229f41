import type { ConnectRouter } from "@connectrpc/connect";
import { ReferenceDataService } from "../../../gen/accounts/v1/lookups_pb.js";
import { rowId } from "../../../lib/ids.js";
import type { AccountsKit } from "../kit.js";
import { memberWorkspaceScope } from "../access.js";
import { countryNotFound } from "../errors.js";
import { countryById } from "./countries.js";
import { COUNTRY_LIST, CURRENCY_LIST, subdivisionMessages, TIMEZONE_NAMES, timezoneOffsets } from "./rules.js";

/** Countries, subdivisions, currencies and time zones (public), and a workspace's currencies. */
export function referenceDataHandlers({ clock }: AccountsKit) {
  return (router: ConnectRouter) =>
    router.service(ReferenceDataService, {
      async listCountries() {
        return { countries: [...COUNTRY_LIST] };
      },

      async listCountrySubdivisions(req) {
        const id = rowId(req.countryId);
        const country = id === undefined ? undefined : countryById(Number(id));
        if (!country) throw countryNotFound();
        return { subdivisions: subdivisionMessages(country) };
      },

      async listCurrencies() {
        return { currencies: [...CURRENCY_LIST] };
      },

      async listTimezones() {
        return { timezones: [...TIMEZONE_NAMES] };
      },

      async listTimezoneOffsets() {
        return { timezones: timezoneOffsets(clock.now()) };
      },

      // The workspace's currency: its default (rates and amounts are in it); projects' own
      // currencies live in the tracking service, which this one does not read.
      async listWorkspaceCurrencies(_req, ctx) {
        return { currencies: [memberWorkspaceScope(ctx).seen.workspace.default_currency] };
      },
    });
}
