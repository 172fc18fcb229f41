import { create } from "@bufbuild/protobuf";
import { CountrySchema, CurrencySchema, SubdivisionSchema, TimezoneSchema, type Country, type Currency, type Subdivision, type Timezone } from "../../../gen/accounts/v1/lookups_pb.js";
import { COUNTRIES, type CountryEntry } from "./countries.js";
import { subdivisionsOf } from "./subdivisions.js";

/**
 * A currency's id, from its three letters (A=0): (a*26 + b)*26 + c + 1. The runtime's list of
 * currencies changes with its ICU data, so a place in it would not stay the same id; the letters do.
 */
export function currencyId(code: string): number {
  const [a, b, c] = [...code.toUpperCase()].map((ch) => ch.charCodeAt(0) - 65);
  return (a * 26 + b) * 26 + c + 1;
}

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });

/** The currency's narrow symbol ("$", "€"); its code where the runtime knows none. */
export function currencySymbol(code: string): string {
  const parts = new Intl.NumberFormat("en", { style: "currency", currency: code, currencyDisplay: "narrowSymbol" }).formatToParts(0);
  return parts.find((p) => p.type === "currency")?.value ?? code;
}

function countryMessage(c: CountryEntry): Country {
  return create(CountrySchema, {
    countryCode: c.code,
    defaultCurrencyId: c.currency ? BigInt(currencyId(c.currency)) : undefined,
    id: BigInt(c.id),
    name: regionNames.of(c.code) ?? c.code,
    requiresPostalCode: false,
    vatApplicable: false,
    vatPercentage: 0,
    vatRegex: "",
  });
}

/** Every country, by name. Built once: nothing in it changes while the process runs. */
export const COUNTRY_LIST: readonly Country[] = COUNTRIES.map(countryMessage).sort((a, b) => a.name.localeCompare(b.name, "en"));

export function subdivisionMessages(country: CountryEntry): Subdivision[] {
  return subdivisionsOf(country).map((s) =>
    create(SubdivisionSchema, { countryId: BigInt(country.id), countrySubdivisionId: BigInt(s.id), isoCode: s.isoCode, name: s.name }),
  );
}

/** Every currency the runtime knows, by code. */
export const CURRENCY_LIST: readonly Currency[] = Intl.supportedValuesOf("currency").map((code) =>
  create(CurrencySchema, { currencyId: BigInt(currencyId(code)), isoCode: code, symbol: currencySymbol(code) }),
);

/** Every IANA zone the runtime knows, with UTC (what sign-up defaults to), by name. */
export const TIMEZONE_NAMES: readonly string[] = [...new Set([...Intl.supportedValuesOf("timeZone"), "UTC"])].sort();

/** The zone's offset from UTC at the instant, "+05:30" ("+00:00" for UTC). */
export function utcOffset(zone: string, at: Date): string {
  const name = new Intl.DateTimeFormat("en", { timeZone: zone, timeZoneName: "longOffset" }).formatToParts(at).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const offset = name.replace(/^GMT/, "");
  return offset === "" ? "+00:00" : offset;
}

export function timezoneOffsets(at: Date): Timezone[] {
  return TIMEZONE_NAMES.map((name) => create(TimezoneSchema, { name, utc: utcOffset(name, at) }));
}
