/**
 * ISO 3166-2 subdivisions of the countries whose addresses name one (states and provinces); the
 * runtime has no such data, so this small table is it. Other countries have none here (an empty
 * list). Each entry is "<code after the dash>:<name>", in the order of the standard's list, which
 * fixes each subdivision's id (see subdivisionsOf).
 */
const TABLE: Record<string, string> = {
  US: "AL:Alabama|AK:Alaska|AZ:Arizona|AR:Arkansas|CA:California|CO:Colorado|CT:Connecticut|DE:Delaware|DC:District of Columbia|FL:Florida|GA:Georgia|HI:Hawaii|ID:Idaho|IL:Illinois|IN:Indiana|IA:Iowa|KS:Kansas|KY:Kentucky|LA:Louisiana|ME:Maine|MD:Maryland|MA:Massachusetts|MI:Michigan|MN:Minnesota|MS:Mississippi|MO:Missouri|MT:Montana|NE:Nebraska|NV:Nevada|NH:New Hampshire|NJ:New Jersey|NM:New Mexico|NY:New York|NC:North Carolina|ND:North Dakota|OH:Ohio|OK:Oklahoma|OR:Oregon|PA:Pennsylvania|RI:Rhode Island|SC:South Carolina|SD:South Dakota|TN:Tennessee|TX:Texas|UT:Utah|VT:Vermont|VA:Virginia|WA:Washington|WV:West Virginia|WI:Wisconsin|WY:Wyoming",
  CA: "AB:Alberta|BC:British Columbia|MB:Manitoba|NB:New Brunswick|NL:Newfoundland and Labrador|NS:Nova Scotia|NT:Northwest Territories|NU:Nunavut|ON:Ontario|PE:Prince Edward Island|QC:Quebec|SK:Saskatchewan|YT:Yukon",
  AU: "ACT:Australian Capital Territory|NSW:New South Wales|NT:Northern Territory|QLD:Queensland|SA:South Australia|TAS:Tasmania|VIC:Victoria|WA:Western Australia",
  DE: "BW:Baden-Württemberg|BY:Bayern|BE:Berlin|BB:Brandenburg|HB:Bremen|HH:Hamburg|HE:Hessen|MV:Mecklenburg-Vorpommern|NI:Niedersachsen|NW:Nordrhein-Westfalen|RP:Rheinland-Pfalz|SL:Saarland|SN:Sachsen|ST:Sachsen-Anhalt|SH:Schleswig-Holstein|TH:Thüringen",
};

export interface SubdivisionEntry {
  /** country id * 1000 + place in the country's list (from 1): stable while the table only grows at the end. */
  id: number;
  /** "US-CA". */
  isoCode: string;
  name: string;
}

/** The subdivisions of the country (alpha-2 code and id), by name. */
export function subdivisionsOf(country: { code: string; id: number }): SubdivisionEntry[] {
  const entries = TABLE[country.code]?.split("|") ?? [];
  return entries
    .map((entry, i) => {
      const [code, name] = entry.split(":");
      return { id: country.id * 1000 + i + 1, isoCode: `${country.code}-${code}`, name };
    })
    .sort((a, b) => a.name.localeCompare(b.name, "en"));
}
