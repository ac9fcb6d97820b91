import { Suspense, useEffect, type FormEvent } from "react";
import { AdvancedFilters } from "~/components/search/advanced-filters";
import { HealthQuestion } from "~/components/health-question";
import { AfterHydration, lazyComponent } from "~/components/on-demand";
import { useUpgradePrompt } from "~/components/search/upgrade-prompt-state";
import { UsageCounterCard } from "~/components/search/usage-counter-card";
import { GUEST_TRIAL_LIMIT } from "~/browser/guest-usage";
import { useUsage } from "~/browser/use-usage";
import { clearSearchState } from "~/browser/search-storage";
import { customRangeError, PROVIDER_IDS, PROVIDER_LABELS, type ProviderId } from "~/lib/search-params";
import { UPGRADE_REASON, type SearchPageData } from "./form-state";
import { useSearchRun } from "./use-search-run";

// Not needed at first paint (issue 17 page budgets): loaded after hydration or with the results.
const FloatingActions = lazyComponent(() =>
  import("~/components/search/floating-actions").then((m) => m.FloatingActions),
);
// Results (status chips, cards, pagination) show only after the client's search answers or a
// stored search is restored; their chunk, with the cards', is fetched on mount.
const SearchResults = lazyComponent(() => import("~/components/search/search-results").then((m) => m.SearchResults));
const RESULTS_PLACEHOLDER = (
  <div className="mt-6 space-y-3" aria-hidden="true">
    {[0, 1, 2].map((i) => (
      <div key={i} className="h-32 animate-pulse rounded-xl bg-slate-200/70" />
    ))}
  </div>
);
const QuickSearchBanner = lazyComponent(() =>
  import("~/components/search/quick-search-banner").then((m) => m.QuickSearchBanner),
);
const SearchFailureDetails = lazyComponent(() =>
  import("~/components/search/search-failure-details").then((m) => m.SearchFailureDetails),
);
const SavedSearches = lazyComponent(() => import("~/components/search/saved-searches").then((m) => m.SavedSearches));

/**
 * The /search page (SPEC §4): the search form, the health question, the usage counter and the
 * results. The search run lives in useSearchRun, the usage polling in useUsage; the results,
 * floating actions, banners and saved searches are loaded on demand.
 */
export function SearchPage({ data }: { data: SearchPageData }) {
  const { isPro, signedIn } = data;
  const upgrade = useUpgradePrompt();
  const { usage, guestUsed } = useUsage(data.signedIn, data.usage);

  // The results chunk is fetched right after hydration, in a task of its own (not in hydration's effects).
  useEffect(() => {
    const task = setTimeout(() => SearchResults.preload());
    return () => clearTimeout(task);
  }, []);

  const {
    form,
    setForm,
    filtersOpen,
    setFiltersOpen,
    page,
    phase,
    partials,
    progressive,
    results,
    smart,
    arrival,
    mergedOrder,
    setMergedOrder,
    quick,
    setQuick,
    resultsTop,
    runSearch,
  } = useSearchRun(data, upgrade);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setQuick(false);
    clearSearchState();
    void runSearch(form, 1);
  }

  function toggleProvider(id: ProviderId) {
    if (!isPro && id !== "pubmed") {
      upgrade.open("multi_database", UPGRADE_REASON);
      return;
    }
    setForm((f) => ({
      ...f,
      providers: f.providers.includes(id) ? f.providers.filter((p) => p !== id) : [...f.providers, id],
    }));
  }

  const loading = phase.kind === "loading";
  const rangeError = customRangeError(form);

  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <h1 className="text-2xl font-bold text-slate-900">Search Studies</h1>
      <p className="mt-1 text-sm text-slate-600">
        Search PubMed, Crossref, Europe PMC, CORE, Semantic Scholar and DOAJ at once. Results appear as each database
        answers; duplicates are merged by DOI, PMID and title.
      </p>

      <form
        onSubmit={onSubmit}
        className="mt-6 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
        role="search"
      >
        <div className="flex gap-2">
          <label htmlFor="search-query" className="sr-only">
            Search query
          </label>
          <input
            id="search-query"
            name="q"
            type="search"
            value={form.query}
            onChange={(e) => setForm((f) => ({ ...f, query: e.target.value }))}
            placeholder="e.g. vitamin D fracture prevention"
            maxLength={500}
            className="min-w-0 flex-1 rounded-lg border border-slate-300 px-3 py-2 text-base outline-none focus:border-brand-500 focus:ring-2 focus:ring-brand-100"
          />
          <button
            type="submit"
            disabled={loading || !form.query.trim() || !!rangeError}
            className="rounded-lg bg-brand-600 px-5 py-2 font-medium text-white hover:bg-brand-700 disabled:cursor-not-allowed disabled:opacity-50"
          >
            {loading ? "Searching..." : "Search"}
          </button>
        </div>

        <div className="mt-3 flex flex-wrap items-center justify-between gap-3">
          <label
            className={`flex items-center gap-2 text-sm ${signedIn ? "text-slate-700" : "text-slate-500"}`}
            title={
              signedIn ? "Rank results by relevance to your query with the AI model" : "Sign in to use Smart Search"
            }
          >
            <input
              type="checkbox"
              checked={signedIn && form.smartSearch}
              disabled={!signedIn}
              onChange={(e) => setForm((f) => ({ ...f, smartSearch: e.target.checked }))}
            />
            Smart Search
            {!signedIn && <span className="text-xs">(sign in to use)</span>}
          </label>
          {signedIn && (
            <AfterHydration fallback={null}>
              <SavedSearches form={form} onRun={(_, p) => void runSearch({ ...form, ...p }, 1)} />
            </AfterHydration>
          )}
        </div>

        <fieldset className="mt-4">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <legend className="text-sm font-medium text-slate-700">Databases</legend>
            <div className="flex gap-3 text-sm">
              <button
                type="button"
                className="text-brand-600 hover:underline"
                onClick={() =>
                  isPro
                    ? setForm((f) => ({ ...f, providers: [...PROVIDER_IDS] }))
                    : upgrade.open("multi_database", UPGRADE_REASON)
                }
              >
                Select All
              </button>
              <button
                type="button"
                className="text-brand-600 hover:underline"
                onClick={() => setForm((f) => ({ ...f, providers: [] }))}
              >
                Clear All
              </button>
            </div>
          </div>
          <div className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-3">
            {PROVIDER_IDS.map((id) => {
              const locked = !isPro && id !== "pubmed";
              return (
                <label
                  key={id}
                  className={`flex cursor-pointer items-center gap-2 rounded-lg border px-3 py-2 text-sm ${locked ? "border-slate-200 bg-slate-50 text-slate-500" : "border-slate-200"}`}
                  title={locked ? UPGRADE_REASON : undefined}
                >
                  <input
                    type="checkbox"
                    checked={!locked && form.providers.includes(id)}
                    onChange={() => toggleProvider(id)}
                    aria-describedby={locked ? "pro-databases-note" : undefined}
                  />
                  {PROVIDER_LABELS[id]}
                  {locked && <span className="ml-auto rounded bg-amber-100 px-1.5 text-xs text-amber-800">Pro</span>}
                </label>
              );
            })}
          </div>
          {!isPro && (
            <p id="pro-databases-note" className="mt-2 text-xs text-slate-600" data-testid="pro-databases-note">
              Databases marked <span className="rounded bg-amber-100 px-1 text-amber-800">Pro</span> are searched on the
              Professional plan; {signedIn ? "your plan searches PubMed" : "signed out, a search uses PubMed"}. Choosing
              one shows what the plan includes.
            </p>
          )}
          {form.providers.length === 0 && (
            <p className="mt-2 text-sm text-amber-700">
              Select at least one database to search (PubMed will be used if none selected)
            </p>
          )}
        </fieldset>

        <div className="mt-4">
          <AdvancedFilters value={form} onChange={setForm} open={filtersOpen} onOpenChange={setFiltersOpen} />
        </div>
      </form>

      <div className="mt-6">
        <HealthQuestion />
      </div>

      <UsageCounterCard
        className="mt-4"
        kind={!signedIn ? "guest" : isPro ? "pro" : "free"}
        used={signedIn ? (usage?.used ?? 0) : guestUsed}
        limit={signedIn ? (usage?.limit ?? 0) : GUEST_TRIAL_LIMIT}
        onUpgrade={() => upgrade.open("ai_summaries", "Unlimited AI analyses come with Professional")}
      />

      {quick && (
        <div className="mt-4">
          <Suspense fallback={null}>
            <QuickSearchBanner onDismiss={() => setQuick(false)} onOpenFilters={() => setFiltersOpen(true)} />
          </Suspense>
        </div>
      )}

      <div ref={resultsTop} className="scroll-mt-20" />

      {phase.kind === "error" && (
        <div
          role="alert"
          className="mt-6 rounded-xl border border-red-200 bg-red-50 p-4 text-red-800"
          data-testid="search-error"
        >
          <p className="font-semibold">{phase.title}</p>
          <p className="text-sm">{phase.message}</p>
          {phase.retry && (
            <Suspense fallback={null}>
              <SearchFailureDetails
                providers={phase.providers}
                development={Boolean(data.development)}
                onRetry={() => void runSearch(form, page)}
              />
            </Suspense>
          )}
        </div>
      )}

      {(loading || (phase.kind === "done" && results)) && (
        <Suspense fallback={RESULTS_PLACEHOLDER}>
          <SearchResults
            loadingProviders={loading ? phase.providers : null}
            partials={partials}
            progressive={progressive}
            results={results}
            smart={smart}
            arrival={arrival}
            mergedOrder={mergedOrder}
            onMergedOrder={() => setMergedOrder(true)}
            signedIn={signedIn}
            isPro={isPro}
            form={form}
            page={page}
            onPage={(p) => void runSearch(form, p, { scrollToResults: true })}
          />
        </Suspense>
      )}

      <AfterHydration fallback={null}>
        <FloatingActions signedIn={signedIn} />
      </AfterHydration>
      {upgrade.element}
    </div>
  );
}
