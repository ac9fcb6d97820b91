import {
  DEFAULT_SEARCH_FORM,
  PROVIDER_IDS,
  RESULT_LIMITS,
  type ProviderId,
  type ResultLimit,
  type SearchFormState,
} from "~/lib/search-params";

/** What the /search loader hands the page: the plan, the settings' defaults and the AI usage (SPEC §4). */
export type SearchPageData = {
  signedIn: boolean;
  isPro: boolean;
  /** The settings' default database ("multi" or a provider id) and results per page; null when signed out. */
  defaults: { provider: string; limit: number } | null;
  /** AI summaries used this month and the plan's limit (null: unlimited); null when signed out. */
  usage: { used: number; limit: number | null } | null;
  /** Development only: a failed search names `npm run start:offline`. */
  development: boolean;
};

export const UPGRADE_REASON = "Multi-database search requires Professional subscription";

/** The form a user starts from: their settings' default database and page size (SPEC §4). */
export function initialForm(data: SearchPageData): SearchFormState {
  const providers: ProviderId[] = !data.isPro
    ? ["pubmed"]
    : data.defaults?.provider === "multi"
      ? [...PROVIDER_IDS]
      : PROVIDER_IDS.includes(data.defaults?.provider as ProviderId)
        ? [data.defaults!.provider as ProviderId]
        : [...PROVIDER_IDS];
  const limit = RESULT_LIMITS.includes(data.defaults?.limit as ResultLimit)
    ? (data.defaults!.limit as ResultLimit)
    : 25;
  return { ...DEFAULT_SEARCH_FORM, providers, limit };
}

/** Free and guest searches are PubMed only; the form can never hold anything else for them. */
export function allowed(form: SearchFormState, isPro: boolean): SearchFormState {
  return isPro ? form : { ...form, providers: ["pubmed"] };
}
