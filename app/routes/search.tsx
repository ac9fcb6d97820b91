import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { startTransition, Suspense, useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { getUser } from "~/.server/auth/session";
import { getSubscriptionStatus } from "~/.server/billing/usage";
import type { ApiStudy, SearchResponse } from "~/lib/search/types";
import { getUserSettings } from "~/.server/settings/queries";
import { isDevelopment } from "~/.server/env";
import { AdvancedFilters } from "~/components/search/advanced-filters";
import { HealthQuestion } from "~/components/health-question";
import { AfterHydration, lazyComponent } from "~/components/on-demand";
import type { ProviderPartial, SmartState } from "~/components/search/search-results";
import { useUpgradePrompt } from "~/components/search/upgrade-prompt-state";
import { UsageCounterCard } from "~/components/search/usage-counter-card";
import { GUEST_TRIAL_LIMIT, USAGE_CHANGED_EVENT, readGuestUsage, syncGuestUsage } from "~/browser/guest-usage";
import { REPLAYED_EVENT, serviceWorkerControlsPage, type ReplayedMessage } from "~/browser/offline-sync";
import { SearchError, streamSearch } from "~/browser/search-client";
import { consumePendingReload, onSearchReload } from "~/browser/search-events";
import {
  customRangeError,
  DEFAULT_SEARCH_FORM,
  fromUrl,
  pageFromUrl,
  PROVIDER_IDS,
  PROVIDER_LABELS,
  RESULT_LIMITS,
  toApiParams,
  toPageUrl,
  type ProviderId,
  type ResultLimit,
  type SearchFormState,
} from "~/lib/search-params";
import { clearSearchState, loadSearchState, saveSearchState } from "~/browser/search-storage";

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

export const meta: MetaFunction = () => [{ title: "Search Studies · MetaMind" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const app = context.app;
  const user = await getUser(app, request);
  // Development only: a failed search names `npm run start:offline` (recorded responses, no network).
  const development = isDevelopment(app.env);
  if (!user) return { signedIn: false, isPro: false, defaults: null, usage: null, development };
  const [settings, subscription] = await Promise.all([
    getUserSettings(app, { userId: user.id }),
    getSubscriptionStatus(app, { user, now: new Date() }),
  ]);
  return {
    signedIn: true,
    isPro: user.plan === "pro",
    defaults: { provider: settings.defaultSearchProvider, limit: settings.searchResultsPerPage },
    usage: { used: subscription.usage.aiSummaries, limit: subscription.limits.AI_SUMMARIES_PER_MONTH },
    development,
  };
}

type LoaderData = ReturnType<typeof useLoaderData<typeof loader>>;
const SUBSCRIPTION_POLL_MS = 10_000;
const UPGRADE_REASON = "Multi-database search requires Professional subscription";
const OFFLINE_SEARCH_MESSAGE = "You are offline; the search will run when you reconnect.";

/** The form a user starts from: their settings' default database and page size (SPEC §4). */
function initialForm(data: LoaderData): SearchFormState {
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
function allowed(form: SearchFormState, isPro: boolean): SearchFormState {
  return isPro ? form : { ...form, providers: ["pubmed"] };
}

type Phase =
  | { kind: "idle" }
  | { kind: "loading"; providers: ProviderId[] }
  | { kind: "done" }
  | {
      kind: "error";
      title: string;
      message: string;
      providers?: Record<string, { status: string; error?: string | null } | undefined> | null;
      retry?: boolean;
    };

/** Keeps the usage-counter card current: polled every 10 s, on focus and after AI use (SPEC §4). */
function useUsage(data: LoaderData) {
  const [usage, setUsage] = useState(data.usage);
  const [guestUsed, setGuestUsed] = useState(0);
  useEffect(() => {
    if (!data.signedIn) {
      const read = () => setGuestUsed(readGuestUsage().aiSummaries);
      read();
      void syncGuestUsage(); // the server's counters are the authority; this fires the event
      window.addEventListener(USAGE_CHANGED_EVENT, read);
      window.addEventListener("focus", read);
      return () => {
        window.removeEventListener(USAGE_CHANGED_EVENT, read);
        window.removeEventListener("focus", read);
      };
    }
    let stopped = false;
    const refresh = async () => {
      try {
        const res = await fetch(`/api/user/subscription?t=${Date.now()}`, {
          credentials: "include",
          cache: "no-store",
        });
        if (!res.ok || stopped) return;
        const body = (await res.json()) as {
          usage: { aiSummaries: number };
          limits: { AI_SUMMARIES_PER_MONTH: number | null };
        };
        setUsage({ used: body.usage.aiSummaries, limit: body.limits.AI_SUMMARIES_PER_MONTH });
      } catch (error) {
        console.warn("subscription refresh failed", error);
      }
    };
    const timer = setInterval(refresh, SUBSCRIPTION_POLL_MS);
    window.addEventListener("focus", refresh);
    window.addEventListener(USAGE_CHANGED_EVENT, refresh);
    return () => {
      stopped = true;
      clearInterval(timer);
      window.removeEventListener("focus", refresh);
      window.removeEventListener(USAGE_CHANGED_EVENT, refresh);
    };
  }, [data.signedIn]);
  return { usage, guestUsed };
}

export default function SearchPage() {
  const data = useLoaderData<typeof loader>();
  const { isPro, signedIn } = data;
  const [form, setForm] = useState<SearchFormState>(() => initialForm(data));
  const [filtersOpen, setFiltersOpen] = useState(false);
  const [page, setPage] = useState(1);
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const [partials, setPartials] = useState<Map<ProviderId, ProviderPartial>>(new Map());
  const [results, setResults] = useState<SearchResponse | null>(null);
  const [smart, setSmart] = useState<SmartState>({ status: "off", studies: null, model: null });
  const [quick, setQuick] = useState(false);
  const abortRef = useRef<AbortController | null>(null);
  const offlinePending = useRef<{ form: SearchFormState; page: number } | null>(null);
  const resultsTop = useRef<HTMLDivElement>(null);
  /** Study ids in the order their cards appeared while the databases answered. */
  const [arrival, setArrival] = useState<number[]>([]);
  const [mergedOrder, setMergedOrder] = useState(false);
  const started = useRef(false);
  const upgrade = useUpgradePrompt();
  const { usage, guestUsed } = useUsage(data);

  useEffect(() => SearchResults.preload(), []);

  const runSmartFilter = useCallback(async (query: string, studies: ApiStudy[], signal: AbortSignal) => {
    if (studies.length === 0) return;
    setSmart({ status: "ranking", studies: null, model: null });
    try {
      const { rankBySmartSearch } = await import("~/components/search/search-results");
      const ranked = await rankBySmartSearch(query, studies, signal);
      setSmart({ status: "done", studies: ranked.studies, model: ranked.model });
    } catch (error) {
      if (signal.aborted) return;
      console.warn("smart filter failed; showing all results", error);
      setSmart({ status: "failed", studies: null, model: null });
    }
  }, []);

  const runSearch = useCallback(
    async (next: SearchFormState, targetPage: number, options: { scrollToResults?: boolean } = {}) => {
      const current = allowed(next, isPro);
      if (!current.query.trim() || customRangeError(current)) return;
      abortRef.current?.abort();
      const controller = new AbortController();
      abortRef.current = controller;
      const providers = current.providers.length > 0 ? current.providers : (["pubmed"] as ProviderId[]);
      setForm(current);
      setPage(targetPage);
      setPartials(new Map());
      setResults(null);
      setArrival([]);
      setMergedOrder(false);
      setSmart({ status: "off", studies: null, model: null });
      setPhase({ kind: "loading", providers });
      window.history.replaceState(window.history.state, "", toPageUrl(current, targetPage));
      saveSearchState({ form: current, page: targetPage, results: null });
      try {
        const done = await streamSearch(toApiParams(current, targetPage), {
          signal: controller.signal,
          // Result cards render as transitions: React renders them in slices and keeps the page
          // responsive (no long task while a database's cards or the merged list come in).
          onProvider: (event) =>
            startTransition(() =>
              setPartials((map) => new Map(map).set(event.provider, { report: event.report, studies: event.studies })),
            ),
        });
        if (controller.signal.aborted) return;
        startTransition(() => {
          setResults(done);
          setPhase({ kind: "done" });
        });
        saveSearchState({ form: current, page: targetPage, results: done });
        // Only paging jumps to the top of the list; a finished search leaves the reader's place alone.
        if (options.scrollToResults) resultsTop.current?.scrollIntoView({ block: "start", behavior: "smooth" });
        if (current.smartSearch && signedIn) void runSmartFilter(current.query, done.studies, controller.signal);
      } catch (error) {
        if (controller.signal.aborted) return;
        if (
          (error instanceof SearchError && error.code === "OFFLINE") ||
          (error instanceof TypeError && navigator.onLine === false)
        ) {
          // Offline: run it again when the connection returns (see the effect below).
          offlinePending.current = { form: current, page: targetPage };
          setPhase({
            kind: "error",
            title: "You are offline",
            message: error instanceof SearchError ? error.message : OFFLINE_SEARCH_MESSAGE,
          });
          return;
        }
        if (error instanceof SearchError) {
          if (error.status === 403 && (error.code === "PRO_REQUIRED" || error.code === "LIMIT_REACHED")) {
            setPhase({ kind: "idle" });
            upgrade.open("multi_database", error.message || UPGRADE_REASON);
            return;
          }
          const unavailable =
            error.body?.serviceUnavailable ||
            (/experiencing high load/i.test(error.message) && !(error.body?.studies?.length ?? 0));
          if (unavailable) {
            const providers = error.body?.providers as
              Record<string, { status: string; error?: string | null } | undefined> | undefined;
            const anyReport = Object.values(providers ?? {}).some((r) => r && r.status !== "ok");
            setPhase({
              kind: "error",
              title: "Database Temporarily Unavailable",
              message: anyReport ? "No database answered this search:" : error.message || "All search providers failed",
              providers,
              retry: true,
            });
            return;
          }
        }
        const message = error instanceof Error ? error.message : "network error";
        setPhase({ kind: "error", title: "Search failed", message: `Search failed: ${message}`, retry: true });
      }
    },
    [isPro, signedIn, runSmartFilter, upgrade],
  );

  // A search made offline runs again once the connection is back: when the service worker's
  // search-sync queue has delivered it (that also records it in the history, one entry with this
  // run), or on the 'online' event when no service worker controls the page.
  useEffect(() => {
    const rerun = () => {
      const pending = offlinePending.current;
      offlinePending.current = null;
      if (pending) void runSearch(pending.form, pending.page);
    };
    const onReplayed = (event: Event) => {
      if ((event as CustomEvent<ReplayedMessage>).detail?.queue === "search-sync") rerun();
    };
    const onOnline = () => {
      if (!serviceWorkerControlsPage()) rerun();
    };
    window.addEventListener(REPLAYED_EVENT, onReplayed);
    window.addEventListener("online", onOnline);
    return () => {
      window.removeEventListener(REPLAYED_EVENT, onReplayed);
      window.removeEventListener("online", onOnline);
    };
  }, [runSearch]);

  // Start-up order (SPEC §4): a Reload parked by the History dialog, then the URL, then the
  // locally stored search (restored without a new request).
  useEffect(() => {
    // Once per page load, also under StrictMode's mount–unmount–mount: one /api/search per URL.
    if (started.current) return;
    started.current = true;
    const pending = consumePendingReload();
    const params = new URLSearchParams(window.location.search);
    if (pending) {
      const next = allowed({ ...initialForm(data), ...pending }, isPro);
      if (next.dateRange !== "any") setFiltersOpen(true);
      void runSearch(next, 1);
    } else if (params.get("q")) {
      setQuick(params.get("source") === "quick");
      const next = allowed({ ...initialForm(data), ...fromUrl(params) }, isPro);
      if (next.dateRange !== "any") setFiltersOpen(true);
      void runSearch(next, pageFromUrl(params));
    } else {
      const stored = loadSearchState();
      if (stored) {
        setForm(allowed(stored.form, isPro));
        setPage(stored.page);
        if (stored.results) {
          setResults(stored.results);
          setPhase({ kind: "done" });
        }
      }
    }
    // Runs once on mount; later changes go through runSearch.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(
    () =>
      onSearchReload((p) => {
        const next = allowed({ ...initialForm(data), ...p }, isPro);
        if (next.dateRange !== "any") setFiltersOpen(true);
        setQuick(false);
        void runSearch(next, 1);
      }),
    [data, isPro, runSearch],
  );

  // Leaving the page cancels the search in flight (not StrictMode's simulated unmount, which
  // would abort the page's first request and fire it again).
  useEffect(() => {
    const leave = () => abortRef.current?.abort();
    window.addEventListener("pagehide", leave);
    return () => window.removeEventListener("pagehide", leave);
  }, []);

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
  const progressive = useMemo(() => {
    const seen = new Set<number>();
    const list: ApiStudy[] = [];
    for (const { studies } of partials.values()) {
      for (const s of studies) {
        if (seen.has(s.id)) continue;
        seen.add(s.id);
        list.push(s);
      }
    }
    return list;
  }, [partials]);
  useEffect(() => {
    if (loading && progressive.length > 0) setArrival(progressive.map((study) => study.id));
  }, [loading, progressive]);
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
