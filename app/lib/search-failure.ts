/**
 * What to tell the reader when no database answered a search (503 ALL_PROVIDERS_FAILED): each
 * database's own reason, in words, from the per-database reports the answer carries.
 */
import { PROVIDER_LABELS } from "./search-params";

/** One database's report as the search answer carries it (GET /api/search → providers). */
export interface ProviderFailureReport {
  status: string;
  error?: string | null;
}

/** A database's failure in words: the network, a timeout, an HTTP status, else its own message. */
export function failureReason(report: ProviderFailureReport): string {
  const raw = (report.error ?? "").trim();
  if (report.status === "timeout" || /timed? ?out|abort/i.test(raw)) return "did not answer in time";
  if (
    /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ENETUNREACH|getaddrinfo|fetch failed|network|Failed to fetch/i.test(
      raw,
    )
  ) {
    return "could not be reached (no network connection?)";
  }
  const http = /\b(?:HTTP|status)\s*(\d{3})\b/i.exec(raw);
  if (http) return `answered with an error (HTTP ${http[1]})`;
  if (report.status === "unavailable") return raw ? `is unavailable: ${raw}` : "is unavailable";
  return raw ? `failed: ${raw}` : "failed without a reason";
}

/** "PubMed could not be reached (no network connection?)" per database that did not answer, in the order given. */
export function providerFailures(
  providers: Record<string, ProviderFailureReport | undefined> | null | undefined,
): string[] {
  return Object.entries(providers ?? {})
    .filter((e): e is [string, ProviderFailureReport] => !!e[1] && e[1].status !== "ok")
    .map(([id, report]) => `${PROVIDER_LABELS[id] ?? id} ${failureReason(report)}`);
}
