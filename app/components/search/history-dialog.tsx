import { History, Loader2, RotateCcw } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import {
  Dialog,
  DialogBody,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from "~/components/ui/dialog";
import { formatRelativeTime } from "~/lib/relative-time";
import { historyCountLabels } from "~/lib/format";
import { requestSearchReload } from "~/browser/search-events";
import { activeFilterBadges, formFromStoredSearch, providerNames, type StoredSearchFilters } from "~/lib/search-params";

/** One row of GET /api/search-history. */
export interface SearchHistoryEntry {
  id: number | string;
  query: string;
  filters: StoredSearchFilters;
  providers: string[];
  /** Records retrieved in this search (all pages opened). */
  resultCount: number;
  /** Records the databases hold for the query, when known. */
  databaseTotal?: number;
  createdAt: string;
}

type LoadState = { kind: "loading" } | { kind: "error" } | { kind: "done"; entries: SearchHistoryEntry[] };

function readEntries(body: unknown): SearchHistoryEntry[] | null {
  const list = (body as { history?: unknown } | null)?.history;
  if (!Array.isArray(list)) return null;
  return list
    .filter(
      (e): e is Record<string, unknown> =>
        typeof e === "object" && e !== null && typeof e.query === "string" && typeof e.createdAt === "string",
    )
    .map((e) => ({
      id: typeof e.id === "number" || typeof e.id === "string" ? e.id : String(e.createdAt),
      query: e.query as string,
      filters: typeof e.filters === "object" && e.filters !== null ? (e.filters as StoredSearchFilters) : {},
      providers: Array.isArray(e.providers) ? e.providers.filter((p): p is string => typeof p === "string") : [],
      resultCount: typeof e.resultCount === "number" ? e.resultCount : 0,
      databaseTotal: typeof e.databaseTotal === "number" ? e.databaseTotal : undefined,
      createdAt: e.createdAt as string,
    }));
}

/**
 * The Search History dialog (SPEC §2): previous searches with query, relative time, result count,
 * filter and database badges, and a Reload button. Goes inside a `Dialog` (ui/dialog).
 */
export function HistoryDialogContent({ onClose }: { onClose: () => void }) {
  return (
    <DialogContent layout="sections" className="max-w-2xl">
      <DialogHeader closeClassName="size-8">
        <div>
          <DialogTitle className="flex items-center gap-2">
            <History className="size-5 text-brand-600" aria-hidden />
            Search History
          </DialogTitle>
          <DialogDescription>
            Your previous searches. Reload one to run it again with the same filters.
          </DialogDescription>
        </div>
      </DialogHeader>
      <HistoryList onClose={onClose} />
    </DialogContent>
  );
}

/** Mounted with the open dialog, so every opening fetches a fresh list (stale time 0, SPEC §9). */
function HistoryList({ onClose }: { onClose: () => void }) {
  const [state, setState] = useState<LoadState>({ kind: "loading" });
  const abortRef = useRef<AbortController | null>(null);

  const load = useCallback(async () => {
    abortRef.current?.abort();
    const controller = new AbortController();
    abortRef.current = controller;
    setState({ kind: "loading" });
    try {
      const response = await fetch("/api/search-history", {
        credentials: "include",
        signal: controller.signal,
      });
      if (!response.ok)
        throw new Error(`${response.status}: ${await response.text().catch(() => response.statusText)}`);
      const entries = readEntries(await response.json());
      if (!entries) throw new Error("Unexpected search history response");
      setState({ kind: "done", entries });
    } catch (error) {
      if (controller.signal.aborted) return;
      console.warn("Failed to load search history", error);
      setState({ kind: "error" });
    }
  }, []);

  useEffect(() => {
    void load();
    return () => abortRef.current?.abort();
  }, [load]);

  function reload(entry: SearchHistoryEntry) {
    requestSearchReload(formFromStoredSearch(entry));
    onClose();
  }

  const now = new Date();
  return (
    <DialogBody aria-busy={state.kind === "loading"}>
      {state.kind === "loading" && (
        <div className="flex items-center justify-center gap-2 py-10 text-sm text-slate-500" role="status">
          <Loader2 className="size-5 animate-spin text-brand-600" aria-hidden />
          Loading search history...
        </div>
      )}

      {state.kind === "error" && (
        <div role="alert" className="py-8 text-center">
          <p className="font-medium text-red-700">Failed to load search history</p>
          <Button variant="outline" size="sm" className="mt-3" onClick={() => void load()}>
            <RotateCcw aria-hidden />
            Try again
          </Button>
        </div>
      )}

      {state.kind === "done" && state.entries.length === 0 && (
        <div className="py-10 text-center">
          <History className="mx-auto size-10 text-slate-300" aria-hidden />
          <p className="mt-3 font-medium text-slate-900">No search history found</p>
          <p className="mt-1 text-sm text-slate-500">Your searches will appear here once you start searching</p>
        </div>
      )}

      {state.kind === "done" && state.entries.length > 0 && (
        <ul className="space-y-3">
          {state.entries.map((entry) => {
            const badges = activeFilterBadges(entry.filters);
            return (
              <li
                key={entry.id}
                data-testid="history-entry"
                className="flex flex-col gap-3 rounded-lg border border-slate-200 p-4 sm:flex-row sm:items-start sm:justify-between"
              >
                <div className="min-w-0 flex-1">
                  <p className="font-medium break-words text-slate-900">{entry.query}</p>
                  <p className="mt-0.5 text-xs text-slate-500">
                    <time dateTime={entry.createdAt} title={new Date(entry.createdAt).toLocaleString()}>
                      {formatRelativeTime(entry.createdAt, now)}
                    </time>
                    {historyCountLabels(entry.resultCount, entry.databaseTotal).map((label) => (
                      <span key={label} data-testid="history-count">
                        {" · "}
                        {label}
                      </span>
                    ))}
                  </p>
                  {(badges.length > 0 || entry.providers.length > 0) && (
                    <div className="mt-2 flex flex-wrap gap-1.5">
                      {providerNames(entry.providers).map((name) => (
                        <Badge key={name} variant="secondary" className="bg-brand-50 text-brand-700">
                          {name}
                        </Badge>
                      ))}
                      {badges.map((label) => (
                        <Badge key={label} variant="outline">
                          {label}
                        </Badge>
                      ))}
                    </div>
                  )}
                </div>
                <Button variant="outline" size="sm" onClick={() => reload(entry)}>
                  <RotateCcw aria-hidden />
                  Reload
                </Button>
              </li>
            );
          })}
        </ul>
      )}
    </DialogBody>
  );
}

/** Controlled Search History dialog, for opening it from anywhere. */
export function HistoryDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <HistoryDialogContent onClose={() => onOpenChange(false)} />
    </Dialog>
  );
}
