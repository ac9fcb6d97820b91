import { FileUp, Loader2, Undo2 } from "lucide-react";
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import { NO_TITLE, type ApiReviewRecord, type ImportWarning } from "~/lib/reviews";
import {
  ReviewApiError,
  reviewsApi,
  type Merge,
  type RecordsQuery,
  type ReviewWithSources,
} from "~/browser/reviews-client";
import { toast } from "~/browser/toast";
import { SavedSearchControl, SavedSearchFields } from "./saved-search";

const select =
  "h-9 rounded-md border border-slate-300 bg-white px-2 text-sm shadow-sm focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:outline-none";

interface UploadItem {
  id: number;
  title: string;
  status: string;
}

const messageOf = (e: unknown, fallback: string) => (e instanceof ReviewApiError ? e.message : fallback);

/** Records per request of the Records tab. */
const PAGE_SIZE = 100;
/** Height of one records row in px (its texts are clamped to fit), and rows drawn beyond the visible ones. */
const ROW_HEIGHT = 64;
const OVERSCAN = 40;

/**
 * The records matching `query`, read a page at a time: `reload` reads the first page again,
 * `loadMore` appends the next one. Answers for an older query are dropped.
 */
function useRecordPages(reviewId: string, query: RecordsQuery) {
  const [records, setRecords] = useState<ApiReviewRecord[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [total, setTotal] = useState<number | null>(null);
  const [loading, setLoading] = useState(false);
  const generation = useRef(0);
  const busy = useRef(false);

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    busy.current = true;
    setLoading(true);
    try {
      const page = await reviewsApi.recordsPage(reviewId, { ...query, limit: PAGE_SIZE });
      if (mine !== generation.current) return;
      setRecords(page.records);
      setNextCursor(page.nextCursor);
      setTotal(page.total ?? page.records.length);
    } finally {
      if (mine === generation.current) {
        busy.current = false;
        setLoading(false);
      }
    }
  }, [reviewId, query]);

  const loadMore = useCallback(() => {
    if (busy.current || !nextCursor) return;
    const mine = generation.current;
    busy.current = true;
    setLoading(true);
    reviewsApi
      .recordsPage(reviewId, { ...query, limit: PAGE_SIZE, cursor: nextCursor })
      .then((page) => {
        if (mine !== generation.current) return;
        setRecords((old) => [...(old ?? []), ...page.records]);
        setNextCursor(page.nextCursor);
      })
      .catch((e: unknown) =>
        toast({
          title: "More records not loaded",
          description: messageOf(e, "Please try again."),
          variant: "destructive",
        }),
      )
      .finally(() => {
        if (mine === generation.current) {
          busy.current = false;
          setLoading(false);
        }
      });
  }, [reviewId, query, nextCursor]);

  useEffect(() => {
    reload().catch((e: unknown) =>
      toast({
        title: "Records not loaded",
        description: messageOf(e, "Please reload the page."),
        variant: "destructive",
      }),
    );
  }, [reload]);

  return { records, nextCursor, total, loading, reload, loadMore };
}

/**
 * The records table, virtualised: only the rows near the visible ones are in the page (fixed row
 * height), and scrolling near the end of the loaded records asks for the next page.
 */
function RecordsTable({
  records,
  total,
  more,
  loading,
  onNeedMore,
}: {
  records: ApiReviewRecord[];
  total: number;
  more: boolean;
  loading: boolean;
  onNeedMore: () => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 512 });
  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (el) setView({ top: el.scrollTop, height: el.clientHeight || 512 });
  }, []);
  const first = Math.max(0, Math.floor(view.top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(records.length, Math.ceil((view.top + view.height) / ROW_HEIGHT) + OVERSCAN);
  useEffect(() => {
    if (more && !loading && last >= records.length - OVERSCAN / 2) onNeedMore();
  }, [more, loading, last, records.length, onNeedMore]);

  return (
    <div
      ref={scroller}
      onScroll={onScroll}
      className="max-h-[32rem] overflow-auto rounded-lg border border-slate-200"
      role="region"
      aria-label="Records"
      tabIndex={0}
    >
      <table className="w-full table-fixed text-left text-sm" data-testid="records-table" aria-rowcount={total + 1}>
        <thead className="sticky top-0 bg-slate-50 text-xs text-slate-500">
          <tr aria-rowindex={1}>
            <th className="w-1/2 px-3 py-2">Title</th>
            <th className="w-14 px-2">Year</th>
            <th className="px-2">Source</th>
            <th className="px-2">Title/abstract</th>
            <th className="px-2">Full text</th>
          </tr>
        </thead>
        <tbody>
          {first > 0 && <tr aria-hidden style={{ height: first * ROW_HEIGHT }} />}
          {records.slice(first, last).map((r, i) => (
            <tr
              key={r.id}
              aria-rowindex={first + i + 2}
              className="border-t border-slate-100 align-top"
              style={{ height: ROW_HEIGHT }}
            >
              <td className="px-3 py-1">
                <div className="line-clamp-2" title={r.title}>
                  {r.title}
                </div>
                {r.journal && <div className="truncate text-xs text-slate-500">{r.journal}</div>}
              </td>
              <td className="px-2 py-1">{r.year ?? ""}</td>
              <td className="px-2 py-1 text-xs">
                <div className="line-clamp-3">{r.origin}</div>
              </td>
              <td className="px-2 py-1 text-xs">
                {r.titleAbstract.decision ?? "—"}
                {r.titleAbstract.reason && (
                  <span className="line-clamp-2 text-slate-500">{r.titleAbstract.reason}</span>
                )}
              </td>
              <td className="px-2 py-1 text-xs">
                {r.titleAbstract.decision === "include" ? (r.fullText.decision ?? "—") : ""}
                {r.fullText.reason && <span className="line-clamp-2 text-slate-500">{r.fullText.reason}</span>}
              </td>
            </tr>
          ))}
          {last < records.length && <tr aria-hidden style={{ height: (records.length - last) * ROW_HEIGHT }} />}
        </tbody>
      </table>
      {(loading || more) && (
        <p
          className="flex items-center gap-2 px-3 py-2 text-xs text-slate-500"
          role="status"
          data-testid="records-loaded"
        >
          {loading && <Loader2 className="size-4 animate-spin" aria-hidden />}
          {records.length.toLocaleString("en")} of {total.toLocaleString("en")} loaded
        </p>
      )}
    </div>
  );
}

/**
 * The Records tab: import (file, uploaded PDFs), the sources with their counts, the records with
 * their decisions (filterable), and every merge of duplicates with its undo.
 */
export function RecordsTab({ review, onChanged }: { review: ReviewWithSources; onChanged: () => void }) {
  const [merges, setMerges] = useState<Merge[]>([]);
  const [filter, setFilter] = useState("");
  const [search, setSearch] = useState("");
  const [q, setQ] = useState("");
  const [source, setSource] = useState("");
  const [busy, setBusy] = useState(false);
  const [importError, setImportError] = useState<string | null>(null);
  const [importWarnings, setImportWarnings] = useState<ImportWarning[]>([]);
  const [uploads, setUploads] = useState<UploadItem[]>([]);
  const [picked, setPicked] = useState<Set<number>>(new Set());

  useEffect(() => {
    const t = setTimeout(() => setQ(search.trim()), 300);
    return () => clearTimeout(t);
  }, [search]);

  const query = useMemo<RecordsQuery>(() => {
    const [stage, decision] = filter.split(":");
    return {
      stage: (stage || undefined) as RecordsQuery["stage"],
      decision: decision || undefined,
      q: q || undefined,
      source: source || undefined,
    };
  }, [filter, q, source]);
  const list = useRecordPages(review.id, query);
  const reloadList = list.reload;

  const load = useCallback(async () => {
    const [m] = await Promise.all([reviewsApi.merges(review.id), reloadList()]);
    setMerges(m.merges);
  }, [review.id, reloadList]);

  useEffect(() => {
    reviewsApi
      .merges(review.id)
      .then((m) => setMerges(m.merges))
      .catch((e: unknown) =>
        toast({
          title: "Duplicates not loaded",
          description: messageOf(e, "Please reload the page."),
          variant: "destructive",
        }),
      );
  }, [review.id]);

  useEffect(() => {
    fetch("/api/uploaded-studies")
      .then((r) => (r.ok ? (r.json() as Promise<UploadItem[]>) : []))
      .then((list) => setUploads(Array.isArray(list) ? list.filter((s) => s.status === "ready") : []))
      .catch((e: unknown) => console.warn("uploaded PDFs not listed", e));
  }, []);

  async function onImport(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const file = data.get("file");
    if (!(file instanceof File) || file.size === 0) {
      setImportError("Choose a RIS, PubMed (.nbib/.txt), BibTeX or CSV file.");
      return;
    }
    setBusy(true);
    setImportError(null);
    setImportWarnings([]);
    try {
      const result = await reviewsApi.importFile(review.id, file, {
        format: String(data.get("format") ?? "") || undefined,
        database: String(data.get("database") ?? "").trim() || undefined,
        savedSearch:
          data.get("searchDatabase") || String(data.get("searchQuery") ?? "").trim()
            ? { database: String(data.get("searchDatabase") ?? ""), query: String(data.get("searchQuery") ?? "") }
            : undefined,
      });
      const warned = result.warnings ?? [];
      toast({
        title: "Records imported",
        description: `${result.imported} records added, ${result.duplicatesRemoved} duplicates merged${warned.length ? "; see the warnings" : ""}.`,
      });
      setImportWarnings(warned);
      form.reset();
      onChanged();
      await load();
    } catch (e) {
      setImportError(messageOf(e, "The file could not be imported."));
    } finally {
      setBusy(false);
    }
  }

  async function onImportUploads() {
    setBusy(true);
    try {
      const result = await reviewsApi.importUploads(review.id, [...picked]);
      toast({
        title: "PDFs added",
        description: `${result.imported} records added, ${result.duplicatesRemoved} duplicates merged.`,
      });
      setPicked(new Set());
      onChanged();
      await load();
    } catch (e) {
      toast({ title: "PDFs not added", description: messageOf(e, "Please try again."), variant: "destructive" });
    } finally {
      setBusy(false);
    }
  }

  async function onUndoMerge(recordId: number) {
    try {
      await reviewsApi.undoMerge(review.id, recordId);
      toast({ title: "Merge undone", description: "The record is back as a separate record to screen." });
      onChanged();
      await load();
    } catch (e) {
      toast({ title: "Merge not undone", description: messageOf(e, "Please try again."), variant: "destructive" });
    }
  }

  return (
    <div className="space-y-8">
      <section aria-labelledby="import-heading" className="grid gap-6 md:grid-cols-2">
        <form onSubmit={onImport} className="space-y-3 rounded-lg border border-slate-200 p-4">
          <h2 id="import-heading" className="font-semibold text-slate-900">
            Import records
          </h2>
          <p className="text-xs text-slate-600">
            RIS (Zotero, EndNote, Covidence, Rayyan), PubMed/MEDLINE (.nbib, .txt), BibTeX or CSV (title, abstract, doi,
            year, authors, journal), up to 20 MB. A file that cannot be read is refused whole, with the line to fix;
            records without a title are imported as &lsquo;{NO_TITLE}&rsquo; and listed.
          </p>
          <div>
            <Label htmlFor="import-file">File</Label>
            <Input id="import-file" name="file" type="file" accept=".ris,.nbib,.txt,.bib,.bibtex,.csv" />
          </div>
          <div className="flex flex-wrap gap-3">
            <div>
              <Label htmlFor="import-format">Format</Label>
              <select id="import-format" name="format" className={`${select} block`}>
                <option value="">From the file name</option>
                <option value="ris">RIS</option>
                <option value="nbib">PubMed / MEDLINE</option>
                <option value="bibtex">BibTeX</option>
                <option value="csv">CSV</option>
              </select>
            </div>
            <div className="flex-1">
              <Label htmlFor="import-database">Database (for PRISMA)</Label>
              <Input
                id="import-database"
                name="database"
                placeholder="e.g. Embase; default: the file name"
                maxLength={200}
              />
            </div>
          </div>
          <SavedSearchFields />
          {importError && (
            <p role="alert" className="text-sm text-red-700" data-testid="import-error">
              {importError}
            </p>
          )}
          {importWarnings.length > 0 && (
            <div
              role="status"
              className="rounded-md border border-amber-300 bg-amber-50 p-2 text-xs text-amber-900"
              data-testid="import-warnings"
            >
              <p className="font-medium">
                Imported, with {importWarnings.length === 1 ? "one warning" : `${importWarnings.length} warnings`}:
              </p>
              <ul className="mt-1 max-h-32 list-disc space-y-0.5 overflow-auto pl-4">
                {importWarnings.map((w, i) => (
                  <li key={i}>
                    Line {w.line}: {w.message}
                  </li>
                ))}
              </ul>
            </div>
          )}
          <Button type="submit" disabled={busy}>
            {busy ? <Loader2 className="animate-spin" aria-hidden /> : <FileUp aria-hidden />} Import
          </Button>
          <p className="text-xs text-slate-500">
            To add a search, run it on the{" "}
            <a className="text-brand-700 underline" href="/search">
              search page
            </a>{" "}
            and choose &ldquo;Add all results to a review&rdquo;.
          </p>
        </form>

        <div className="space-y-3 rounded-lg border border-slate-200 p-4">
          <h2 className="font-semibold text-slate-900">Sources</h2>
          {review.sources.length === 0 ? (
            <p className="text-sm text-slate-600">No records yet.</p>
          ) : (
            <table className="w-full text-left text-sm" data-testid="sources">
              <thead className="text-xs text-slate-500">
                <tr>
                  <th className="py-1">Source</th>
                  <th>Date</th>
                  <th className="text-right">Records</th>
                  <th className="text-right">Duplicates</th>
                </tr>
              </thead>
              <tbody>
                {review.sources.map((s) => (
                  <tr key={s.id} className="border-t border-slate-100">
                    <td className="py-1.5">
                      {s.name}
                      {s.query && <span className="block text-xs text-slate-500">&ldquo;{s.query}&rdquo;</span>}
                      {s.kind === "file" && (
                        <SavedSearchControl
                          reviewId={review.id}
                          source={s}
                          canEdit={review.role === "owner"}
                          onChanged={onChanged}
                        />
                      )}
                    </td>
                    <td className="text-xs text-slate-600">{new Date(s.createdAt).toLocaleDateString()}</td>
                    <td className="text-right">{s.recordCount}</td>
                    <td className="text-right">{s.duplicatesRemoved}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {uploads.length > 0 && (
            <details className="text-sm">
              <summary className="cursor-pointer text-brand-700">Add uploaded PDFs as records</summary>
              <ul className="mt-2 max-h-48 space-y-1 overflow-auto">
                {uploads.map((u) => (
                  <li key={u.id}>
                    <label className="flex items-start gap-2">
                      <input
                        type="checkbox"
                        checked={picked.has(u.id)}
                        onChange={(e) =>
                          setPicked((p) => {
                            const n = new Set(p);
                            if (e.target.checked) n.add(u.id);
                            else n.delete(u.id);
                            return n;
                          })
                        }
                      />
                      <span>{u.title}</span>
                    </label>
                  </li>
                ))}
              </ul>
              <Button size="sm" className="mt-2" disabled={busy || picked.size === 0} onClick={onImportUploads}>
                Add {picked.size || ""} PDFs
              </Button>
            </details>
          )}
        </div>
      </section>

      <section aria-labelledby="records-heading">
        <div className="mb-2 flex flex-wrap items-center gap-3">
          <h2 id="records-heading" className="font-semibold text-slate-900">
            Records{" "}
            {list.total !== null && (
              <span className="text-sm font-normal text-slate-500">({list.total.toLocaleString("en")})</span>
            )}
          </h2>
          <select
            aria-label="Show records"
            className={select}
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          >
            <option value="">All records</option>
            <option value="title_abstract:undecided">Not screened</option>
            <option value="title_abstract:include">Included at title/abstract</option>
            <option value="title_abstract:exclude">Excluded at title/abstract</option>
            <option value="title_abstract:maybe">Maybe</option>
            <option value="full_text:include">Included at full text</option>
            <option value="full_text:exclude">Excluded at full text</option>
          </select>
          {review.sources.length > 1 && (
            <select aria-label="Source" className={select} value={source} onChange={(e) => setSource(e.target.value)}>
              <option value="">Every source</option>
              {review.sources.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          )}
          <Input
            type="search"
            aria-label="Search records"
            placeholder="Search title, abstract, authors, DOI"
            className="h-9 w-64"
            value={search}
            maxLength={300}
            onChange={(e) => setSearch(e.target.value)}
          />
        </div>
        {!list.records ? (
          <Loader2 className="size-5 animate-spin text-slate-500" aria-label="Loading" />
        ) : (
          <RecordsTable
            records={list.records}
            total={list.total ?? list.records.length}
            more={list.nextCursor !== null}
            loading={list.loading}
            onNeedMore={list.loadMore}
          />
        )}
      </section>

      <section aria-labelledby="merges-heading">
        <h2 id="merges-heading" className="mb-2 font-semibold text-slate-900">
          Duplicates merged <span className="text-sm font-normal text-slate-500">({merges.length})</span>
        </h2>
        {merges.length === 0 ? (
          <p className="text-sm text-slate-600">
            No duplicates. Records are merged by DOI, then PMID, then normalised title and year.
          </p>
        ) : (
          <ul className="space-y-2 text-sm" data-testid="merges">
            {merges.map((m) => (
              <li
                key={m.record.id}
                className="flex items-start justify-between gap-3 rounded-md border border-slate-200 p-2"
              >
                <div>
                  <div>
                    {m.record.title} <span className="text-xs text-slate-500">({m.record.origin})</span>
                  </div>
                  <div className="text-xs text-slate-600">
                    merged into #{m.mergedInto.id} from {m.mergedInto.origin}{" "}
                    <Badge variant="outline">{m.reason === "manual" ? "by hand" : `same ${m.reason}`}</Badge>
                  </div>
                </div>
                <Button size="sm" variant="outline" onClick={() => onUndoMerge(m.record.id)}>
                  <Undo2 aria-hidden /> Not a duplicate
                </Button>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
