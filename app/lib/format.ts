/** SPEC §2: the first three authors, then 'et al.' when there are more. */
export function formatAuthors(authors: string[]): string {
  if (authors.length === 0) return "Unknown authors";
  if (authors.length <= 3) return authors.join(", ");
  return `${authors.slice(0, 3).join(", ")} et al.`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "2024-03-05" → "5 Mar 2024", "2024-03" → "Mar 2024", "2024" → "2024"; null → "". */
export function formatPublicationDate(date: string | null): string {
  if (!date) return "";
  const [y, m, d] = date.split("-");
  const month = m ? MONTHS[Number(m) - 1] : undefined;
  if (!month) return y ?? "";
  return d ? `${Number(d)} ${month} ${y}` : `${month} ${y}`;
}

/**
 * An integer count with English thousands separators, e.g. 42249 → "42,249", -1200 → "-1,200".
 * Written without Intl/toLocaleString: the first Intl call on a page loads ICU's locale data, a
 * main-thread task of tens of milliseconds on a phone, for a separator.
 */
export function formatCount(n: number): string {
  const whole = Math.trunc(n);
  const digits = String(Math.abs(whole)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return whole < 0 ? `-${digits}` : digits;
}

/** Display names of the six databases (defined beside their ids, in ./search-params). */
export { PROVIDER_LABELS } from "./search-params";

/**
 * The two counts of a search-history entry as separate phrases: records the user retrieved and
 * records the databases hold for the query, e.g. `["2 records retrieved", "42,249 in the databases"]`.
 * The second is omitted when unknown (undefined) or equal to the first.
 */
export function historyCountLabels(resultCount: number, databaseTotal?: number): string[] {
  const labels = [`${formatCount(resultCount)} ${resultCount === 1 ? "record" : "records"} retrieved`];
  if (databaseTotal !== undefined && databaseTotal !== resultCount) {
    labels.push(`${formatCount(databaseTotal)} in the databases`);
  }
  return labels;
}
