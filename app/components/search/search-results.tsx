import { startTransition, Suspense, useEffect, useMemo, useState } from "react";
import { flushSync } from "react-dom";
import type { ApiStudy, ProviderReport, SearchResponse } from "~/lib/search/types";
import { lazyComponent } from "~/components/on-demand";
import { StudyCard } from "~/components/study-card";
import { formatCount, PROVIDER_LABELS } from "~/lib/format";
import { pageItems } from "~/lib/pagination";
import { recordsToAdd } from "~/lib/reviews";
import { smartSearchNote } from "~/lib/smart-search";
import { inArrivalOrder, sameOrder } from "~/lib/search-order";
import { toApiParams, type ProviderId, type SearchFormState } from "~/lib/search-params";

/**
 * The results half of /search (SPEC §4): each database's status, the cards as they arrive, then
 * the merged page with Smart Search's ranking, the arrival-order note, 'Add to review' and
 * pagination, and Smart Search's request. Nothing here is on screen at first paint, so the route
 * loads it on demand (issue 17 page budgets) when a search starts or a stored one is restored.
 */

/** One database's answer while a search streams. */
export interface ProviderPartial {
  report: ProviderReport;
  studies: ApiStudy[];
}

/** Smart Search's re-ranking of the merged page (POST /api/search/smart-filter). */
export interface SmartState {
  status: "off" | "ranking" | "done" | "failed";
  studies: ApiStudy[] | null;
  model: string | null;
}

export interface SearchResultsProps {
  /** The databases still answering (the search streams), or null once it has finished. */
  loadingProviders: ProviderId[] | null;
  partials: Map<ProviderId, ProviderPartial>;
  /** The de-duplicated cards so far, in arrival order (while loading). */
  progressive: ApiStudy[];
  /** The finished search (null while loading). */
  results: SearchResponse | null;
  smart: SmartState;
  /** Study ids in the order their cards appeared while the databases answered. */
  arrival: number[];
  /** Whether the reader chose the merged order over the arrival order. */
  mergedOrder: boolean;
  onMergedOrder: () => void;
  signedIn: boolean;
  isPro: boolean;
  /** The form of the search shown (for 'Add to review'). */
  form: SearchFormState;
  page: number;
  onPage: (page: number) => void;
}

/**
 * Smart Search (SPEC §4): POST /api/search/smart-filter `{searchQuery, studies}` keeps the studies
 * relevant to the query, ranked, and names the model that ranked them. Returns `{studies, model}`.
 * @throws Error("{status}: {body}") on an error response; the fetch's errors (also an abort).
 */
export async function rankBySmartSearch(
  query: string,
  studies: ApiStudy[],
  signal: AbortSignal,
): Promise<{ studies: ApiStudy[]; model: string }> {
  const res = await fetch("/api/search/smart-filter", {
    method: "POST",
    credentials: "include",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ searchQuery: query, studies }),
    signal,
  });
  if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { relevantStudies: ApiStudy[]; model: string };
  return { studies: body.relevantStudies, model: body.model };
}

/** Opens the dialog that adds every record of the search to a review: loaded with the results. */
const AddToReviewButton = lazyComponent(() =>
  import("~/components/reviews/add-to-review").then((m) => m.AddToReviewButton),
);

/** The database statuses, streaming cards and finished results of a search (see the module doc). */
export function SearchResults(props: SearchResultsProps) {
  const { loadingProviders, partials, progressive, results, smart, arrival, mergedOrder, signedIn, isPro } = props;
  const loading = loadingProviders !== null;
  const reports: [string, ProviderReport | null][] = loading
    ? loadingProviders.map((id) => [id, partials.get(id)?.report ?? null])
    : Object.entries(results?.providers ?? {}).map(([id, r]) => [id, r ?? null]);
  const merged = useMemo(
    () => (smart.status === "done" && smart.studies ? smart.studies : (results?.studies ?? [])),
    [smart, results],
  );
  const arrivalShown = useMemo(() => inArrivalOrder(merged, arrival), [merged, arrival]);
  const canReorder = smart.status !== "done" && !sameOrder(arrivalShown, merged);
  const shown = canReorder && !mergedOrder ? arrivalShown : merged;
  const listed = loading ? progressive : shown;
  const mounted = useCardsInSteps(listed.length);

  /**
   * Switches to the merged order, keeping the card at the top of the viewport where it is. Cards off screen are
   * laid out at an estimated height (content-visibility), and the reorder brings cards never rendered above the
   * reader's card: the list is laid out exactly (every card rendered) while the scroll is corrected, and for two
   * frames after, so each card's remembered height is its real one and nothing moves when rendering is skipped
   * again.
   */
  function showMergedOrder() {
    const header = document.querySelector("header")?.getBoundingClientRect().bottom ?? 0;
    const cards = [...document.querySelectorAll<HTMLElement>("[data-result-id]")];
    const top = cards.find((card) => card.getBoundingClientRect().bottom > header);
    const anchor = top ? { id: top.dataset.resultId!, top: top.getBoundingClientRect().top } : null;
    const list = top?.parentElement ?? null;
    list?.setAttribute("data-exact-layout", "");
    flushSync(() => props.onMergedOrder());
    const card = anchor && document.querySelector<HTMLElement>(`[data-result-id="${anchor.id}"]`);
    if (anchor && card) window.scrollBy(0, card.getBoundingClientRect().top - anchor.top);
    requestAnimationFrame(() => requestAnimationFrame(() => list?.removeAttribute("data-exact-layout")));
  }

  return (
    <>
      {reports.length > 0 && (
        <ul className="mt-6 flex flex-wrap gap-2" aria-label="Database status">
          {reports.map(([id, report]) => (
            <li
              key={id}
              data-testid={`provider-status-${id}`}
              data-status={report?.status ?? "pending"}
              title={report?.error ?? undefined}
              className={`rounded-full px-3 py-1 text-xs font-medium ${
                !report
                  ? "animate-pulse bg-slate-100 text-slate-600"
                  : report.status === "ok"
                    ? "bg-emerald-50 text-emerald-800"
                    : "bg-amber-50 text-amber-800"
              }`}
            >
              {PROVIDER_LABELS[id] ?? id}:{" "}
              {!report
                ? "searching…"
                : report.status === "ok"
                  ? `${report.count} in ${report.ms} ms${report.cached ? " (cached)" : ""}`
                  : `${report.status === "timeout" ? "timed out" : report.status}${report.error ? ` (${report.error})` : ""}`}
            </li>
          ))}
        </ul>
      )}

      {(loading || results) && (
        // One section and one list from the first database's answer to the merged page: a card
        // that arrived while streaming is the same element afterwards (React keeps it by its key),
        // so the reader's place, focus and open abstract survive the end of the search.
        <section className="mt-6" aria-label={loading ? "Results so far" : "Results"} aria-busy={loading || undefined}>
          {loading ? (
            progressive.length === 0 ? (
              <div className="space-y-3" aria-label="Searching">
                {[0, 1, 2].map((i) => (
                  <div key={i} className="h-32 animate-pulse rounded-xl bg-slate-200/70" />
                ))}
              </div>
            ) : (
              <p className="text-sm text-slate-600" data-testid="progress-message">
                {progressive.length} results so far from{" "}
                {[...partials.values()].filter((p) => p.report.status === "ok").length} of {loadingProviders.length}{" "}
                databases — merging duplicates when all have answered…
              </p>
            )
          ) : (
            results && (
              <ResultsHeader
                results={results}
                smart={smart}
                canReorder={canReorder}
                mergedOrder={mergedOrder}
                onMergedOrder={showMergedOrder}
                signedIn={signedIn}
                form={props.form}
              />
            )
          )}
          {listed.length > 0 && (
            <div className="mt-4 space-y-4">
              {listed.slice(0, mounted).map((study) => (
                // A card below the viewport is laid out and painted only when it nears it (its size
                // estimated until then), so a page of cards costs the first screen's cards alone.
                <div
                  key={study.id}
                  data-result-id={study.id}
                  className="[contain-intrinsic-size:auto_14rem] [content-visibility:auto]"
                >
                  <StudyCard study={study} signedIn={signedIn} isPro={isPro} />
                </div>
              ))}
            </div>
          )}
          {!loading &&
            listed.length === 0 &&
            // The server's message already says 'No studies found…' when the search found nothing.
            !/no studies found/i.test(results?.message ?? "") && (
              <p className="mt-8 rounded-xl border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
                No studies found. Try adjusting your search terms or filters.
              </p>
            )}
          {!loading && results && (
            <Pagination page={props.page} totalPages={results.totalPages} onPage={props.onPage} />
          )}
        </section>
      )}
    </>
  );
}

/** Cards mounted in the first step: a phone's first screen and a little more. */
const FIRST_CARDS = 4;
/** Cards mounted per later step, each step a task of its own. */
const CARDS_PER_STEP = 4;

/**
 * How many of a list's `total` cards to mount: the first screen's at once, then CARDS_PER_STEP more per task (a
 * transition after each commit), so mounting a page of cards is several short tasks rather than one long one (issue
 * 17 page budgets: Lighthouse's total blocking time counts each task's time over 50 ms). An emptied list (a new
 * search) starts again from the first screen.
 */
function useCardsInSteps(total: number): number {
  const [mounted, setMounted] = useState(FIRST_CARDS);
  if (total === 0 && mounted !== FIRST_CARDS) setMounted(FIRST_CARDS);
  useEffect(() => {
    if (mounted >= total) return;
    const task = setTimeout(() => startTransition(() => setMounted((n) => n + CARDS_PER_STEP)));
    return () => clearTimeout(task);
  }, [mounted, total]);
  return Math.min(mounted, total);
}

/** The finished search's message, 'Add to review', Smart Search's state and the order note. */
function ResultsHeader(props: {
  results: SearchResponse;
  smart: SmartState;
  canReorder: boolean;
  mergedOrder: boolean;
  onMergedOrder: () => void;
  signedIn: boolean;
  form: SearchFormState;
}) {
  const { results, smart, canReorder, mergedOrder, signedIn } = props;
  return (
    <>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-slate-600" data-testid="search-message">
          {results.message}
          {/* One database: its own total beyond the page; several: the message already counts the merged records. */}
          {results.totalCount > 0 &&
            Object.keys(results.providers).length === 1 &&
            ` ${formatCount(results.totalCount)} records in total.`}
        </p>
        {signedIn && recordsToAdd(results.providers) > 0 && (
          <Suspense fallback={null}>
            <AddToReviewButton params={toApiParams(props.form, 1)} providers={results.providers} />
          </Suspense>
        )}
      </div>
      {smart.status === "ranking" && (
        <p className="mt-2 text-sm text-brand-700">Smart Search is ranking the results…</p>
      )}
      {smart.status === "done" && (
        <p className="mt-2 text-sm text-brand-700" data-testid="smart-search-note">
          {smartSearchNote(smart.studies ?? [], results.studies.length, smart.model)}
        </p>
      )}
      {smart.status === "failed" && (
        <p className="mt-2 text-sm text-amber-700">Smart Search is unavailable right now; showing all results.</p>
      )}
      {canReorder && (
        // A floating note, so offering the merged order moves nothing on the page.
        <p
          className="fixed bottom-4 left-1/2 z-30 flex max-w-[calc(100vw-9rem)] -translate-x-1/2 flex-wrap items-center justify-center gap-x-2 rounded-full border border-slate-200 bg-white px-4 py-2 text-xs text-slate-700 shadow-md sm:text-sm"
          data-testid="order-note"
          role="status"
        >
          {mergedOrder ? "Showing the merged order." : "Cards stay in the order they arrived."}
          {!mergedOrder && (
            <button
              type="button"
              className="font-medium text-brand-700 underline"
              onClick={props.onMergedOrder}
              data-testid="show-merged-order"
            >
              Show merged order
            </button>
          )}
        </p>
      )}
    </>
  );
}

function Pagination({ page, totalPages, onPage }: { page: number; totalPages: number; onPage: (p: number) => void }) {
  if (totalPages <= 1) return null;
  return (
    <nav className="mt-8 flex flex-wrap items-center justify-center gap-1" aria-label="Pagination">
      <button
        type="button"
        disabled={page <= 1}
        onClick={() => onPage(page - 1)}
        className="rounded-md px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-100 disabled:opacity-40"
      >
        Previous
      </button>
      {pageItems(page, totalPages).map((item) =>
        typeof item === "number" ? (
          <button
            type="button"
            key={item}
            aria-current={item === page ? "page" : undefined}
            onClick={() => onPage(item)}
            className={`min-w-9 rounded-md px-3 py-1.5 text-sm ${item === page ? "bg-brand-600 text-white" : "text-slate-700 hover:bg-slate-100"}`}
          >
            {item}
          </button>
        ) : (
          <span key={item} className="px-2 text-slate-500">
            …
          </span>
        ),
      )}
      <button
        type="button"
        disabled={page >= totalPages}
        onClick={() => onPage(page + 1)}
        className="rounded-md px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-100 disabled:opacity-40"
      >
        Next
      </button>
    </nav>
  );
}
