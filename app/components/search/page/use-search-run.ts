import { startTransition, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { ApiStudy, SearchResponse } from "~/lib/search/types";
import type { ProviderPartial, SmartState } from "~/components/search/search-results";
import type { UpgradeFeature } from "~/components/search/upgrade-prompt";
import { REPLAYED_EVENT, serviceWorkerControlsPage, type ReplayedMessage } from "~/browser/offline-sync";
import { SearchError, streamSearch } from "~/browser/search-client";
import { consumePendingReload, onSearchReload } from "~/browser/search-events";
import {
  customRangeError,
  fromUrl,
  pageFromUrl,
  toApiParams,
  toPageUrl,
  type ProviderId,
  type SearchFormState,
} from "~/lib/search-params";
import { loadSearchState, saveSearchState } from "~/browser/search-storage";
import { allowed, initialForm, UPGRADE_REASON, type SearchPageData } from "./form-state";

const OFFLINE_SEARCH_MESSAGE = "You are offline; the search will run when you reconnect.";

/** Where the search run stands: nothing yet, databases answering, finished, or failed (with retry). */
export type Phase =
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

/**
 * The /search page's state and its search run (SPEC §4): the form, `runSearch` (one streamed
 * `/api/search` per run; each database's cards as they answer, then the merged list), the Smart
 * Search ranking, paging, the stored search and the History dialog's Reload, an offline search
 * rerun on reconnect, and the start-up order (parked Reload, then the URL, then the stored search).
 * `upgrade` opens the upgrade prompt when a free or guest user asks for a Pro database.
 */
export function useSearchRun(
  data: SearchPageData,
  upgrade: { open: (feature: UpgradeFeature, reason: string) => void },
) {
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
      // The page switches to its loading state as a transition, rendered in slices.
      startTransition(() => {
        setForm(current);
        setPage(targetPage);
        setPartials(new Map());
        setResults(null);
        setArrival([]);
        setMergedOrder(false);
        setSmart({ status: "off", studies: null, model: null });
        setPhase({ kind: "loading", providers });
      });
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
  // locally stored search (restored without a new request). It runs as a task of its own after
  // hydration's effects (a long task split in two: the page answers input in between).
  useEffect(() => {
    const task = setTimeout(startUp);
    return () => clearTimeout(task);
    // Runs once on mount; later changes go through runSearch.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  function startUp() {
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
  }

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

  return {
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
  };
}
