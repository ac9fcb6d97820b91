import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { getUser } from "~/.server/auth/session";
import type { SearchResponse } from "~/.server/search/service";
import { StudyCard } from "~/components/study-card";
import { PROVIDER_LABELS } from "~/lib/format";
import { pageItems } from "~/lib/pagination";

export const meta: MetaFunction = () => [{ title: "Search Studies · MetaMind" }];

const DATABASES = ["pubmed", "crossref", "europepmc", "core", "semanticscholar", "doaj"] as const;
type Database = (typeof DATABASES)[number];
const LIMIT = 25;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(context.app, request);
  return { signedIn: !!user, isPro: user?.plan === "pro" };
}

type Status =
  | { kind: "idle" }
  | { kind: "loading" }
  | { kind: "done"; results: SearchResponse }
  | { kind: "error"; title: string; message: string; results?: SearchResponse };

function readUrlState(): { q: string; page: number; dbs: Database[] | null } {
  const params = new URLSearchParams(window.location.search);
  const page = Number(params.get("page") ?? "1");
  const dbs = params
    .get("db")
    ?.split(",")
    .filter((d): d is Database => (DATABASES as readonly string[]).includes(d));
  return { q: params.get("q") ?? "", page: Number.isInteger(page) && page > 0 ? page : 1, dbs: dbs?.length ? dbs : null };
}

export default function SearchPage() {
  const { isPro } = useLoaderData<typeof loader>();
  const [query, setQuery] = useState("");
  const [selected, setSelected] = useState<Database[]>(isPro ? [...DATABASES] : ["pubmed"]);
  const [status, setStatus] = useState<Status>({ kind: "idle" });
  const [page, setPage] = useState(1);
  const abortRef = useRef<AbortController | null>(null);
  const resultsTop = useRef<HTMLDivElement>(null);

  const runSearch = useCallback(
    async (q: string, dbs: Database[], targetPage: number) => {
      const trimmed = q.trim();
      if (!trimmed) return;
      abortRef.current?.abort();
      const controller = new AbortController();
      abortRef.current = controller;
      const providers = dbs.length > 0 ? dbs : (["pubmed"] as Database[]);
      setPage(targetPage);
      setStatus({ kind: "loading" });
      const params = new URLSearchParams({
        q: trimmed,
        page: String(targetPage),
        limit: String(LIMIT),
        searchProviders: providers.join(","),
      });
      const url = new URLSearchParams({ q: trimmed, db: providers.join(",") });
      if (targetPage > 1) url.set("page", String(targetPage));
      window.history.replaceState(window.history.state, "", `/search?${url}`);
      try {
        const response = await fetch(`/api/search?${params}`, {
          credentials: "include",
          signal: controller.signal,
        });
        const body = (await response.json().catch(() => null)) as
          | (SearchResponse & { error?: string; message?: string })
          | null;
        if (!response.ok) {
          if (body?.serviceUnavailable) {
            setStatus({
              kind: "error",
              title: "Database Temporarily Unavailable",
              message: body.message ?? "All search providers failed",
              results: body,
            });
          } else {
            setStatus({
              kind: "error",
              title: "Search failed",
              message: `Search failed: ${body?.message ?? response.statusText}`,
            });
          }
          return;
        }
        setStatus({ kind: "done", results: body as SearchResponse });
        resultsTop.current?.scrollIntoView({ block: "start" });
      } catch (error) {
        if (controller.signal.aborted) return;
        setStatus({
          kind: "error",
          title: "Search failed",
          message: `Search failed: ${error instanceof Error ? error.message : "network error"}`,
        });
      }
    },
    [],
  );

  useEffect(() => {
    const initial = readUrlState();
    const dbs = initial.dbs ? (isPro ? initial.dbs : (["pubmed"] as Database[])) : null;
    if (dbs) setSelected(dbs);
    if (initial.q) {
      setQuery(initial.q);
      void runSearch(initial.q, dbs ?? (isPro ? [...DATABASES] : ["pubmed"]), initial.page);
    }
    return () => abortRef.current?.abort();
  }, [isPro, runSearch]);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void runSearch(query, selected, 1);
  }

  function toggle(db: Database) {
    setSelected((current) => (current.includes(db) ? current.filter((d) => d !== db) : [...current, db]));
  }

  const loading = status.kind === "loading";
  const results = status.kind === "done" ? status.results : status.kind === "error" ? status.results : undefined;

  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <h1 className="text-2xl font-bold text-slate-900">Search Studies</h1>
      <p className="mt-1 text-sm text-slate-600">
        Search PubMed, Crossref, Europe PMC, CORE, Semantic Scholar and DOAJ at once. Duplicates are
        merged by DOI, PMID and title.
      </p>

      <form onSubmit={onSubmit} className="mt-6 rounded-xl border border-slate-200 bg-white p-5 shadow-sm" role="search">
        <div className="flex gap-2">
          <label htmlFor="search-query" className="sr-only">
            Search query
          </label>
          <input
            id="search-query"
            name="q"
            type="search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder="e.g. vitamin D fracture prevention"
            maxLength={500}
            className="flex-1 rounded-lg border border-slate-300 px-3 py-2 text-base outline-none focus:border-brand-500 focus:ring-2 focus:ring-brand-100"
          />
          <button
            type="submit"
            disabled={loading || !query.trim()}
            className="rounded-lg bg-brand-600 px-5 py-2 font-medium text-white hover:bg-brand-700 disabled:cursor-not-allowed disabled:opacity-50"
          >
            {loading ? "Searching..." : "Search"}
          </button>
        </div>

        <fieldset className="mt-4">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <legend className="text-sm font-medium text-slate-700">Databases</legend>
            {isPro && (
              <div className="flex gap-3 text-sm">
                <button type="button" className="text-brand-600 hover:underline" onClick={() => setSelected([...DATABASES])}>
                  Select All
                </button>
                <button type="button" className="text-brand-600 hover:underline" onClick={() => setSelected([])}>
                  Clear All
                </button>
              </div>
            )}
          </div>
          <div className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-3">
            {DATABASES.map((db) => {
              const locked = !isPro && db !== "pubmed";
              return (
                <label
                  key={db}
                  className={`flex items-center gap-2 rounded-lg border px-3 py-2 text-sm ${locked ? "border-slate-200 bg-slate-50 text-slate-400" : "border-slate-200"}`}
                  title={locked ? "Multi-database search requires Professional subscription" : undefined}
                >
                  <input
                    type="checkbox"
                    checked={locked ? false : selected.includes(db)}
                    disabled={locked}
                    onChange={() => toggle(db)}
                  />
                  {PROVIDER_LABELS[db]}
                  {locked && <span className="ml-auto text-xs">Pro</span>}
                </label>
              );
            })}
          </div>
          {selected.length === 0 && (
            <p className="mt-2 text-sm text-amber-700">
              Select at least one database to search (PubMed will be used if none selected)
            </p>
          )}
          {!isPro && (
            <p className="mt-2 text-xs text-slate-500">
              Searching the other five databases, alone or together, is part of Professional.
            </p>
          )}
        </fieldset>
      </form>

      <div ref={resultsTop} className="scroll-mt-20" />

      {results && Object.keys(results.providers).length > 0 && (
        <ul className="mt-6 flex flex-wrap gap-2" aria-label="Database status">
          {Object.entries(results.providers).map(([id, report]) => (
            <li
              key={id}
              data-testid={`provider-status-${id}`}
              data-status={report.status}
              title={report.error ?? undefined}
              className={`rounded-full px-3 py-1 text-xs font-medium ${report.status === "ok" ? "bg-emerald-50 text-emerald-800" : "bg-amber-50 text-amber-800"}`}
            >
              {PROVIDER_LABELS[id] ?? id}:{" "}
              {report.status === "ok" ? `${report.count} in ${report.ms} ms` : `${report.status}${report.error ? ` (${report.error})` : ""}`}
            </li>
          ))}
        </ul>
      )}

      {loading && (
        <div className="mt-8 space-y-3" aria-busy="true" aria-label="Searching">
          {[0, 1, 2].map((i) => (
            <div key={i} className="h-32 animate-pulse rounded-xl bg-slate-200/70" />
          ))}
        </div>
      )}

      {status.kind === "error" && (
        <div role="alert" className="mt-6 rounded-xl border border-red-200 bg-red-50 p-4 text-red-800">
          <p className="font-semibold">{status.title}</p>
          <p className="text-sm">{status.message}</p>
        </div>
      )}

      {status.kind === "done" && (
        <section className="mt-6" aria-label="Results">
          <p className="text-sm text-slate-600" data-testid="search-message">
            {status.results.message}
            {status.results.totalCount > 0 && ` About ${status.results.totalCount.toLocaleString("en")} records in total.`}
          </p>
          {status.results.studies.length === 0 ? (
            <p className="mt-8 rounded-xl border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
              No studies found. Try adjusting your search terms or filters.
            </p>
          ) : (
            <div className="mt-4 space-y-4">
              {status.results.studies.map((study) => (
                <StudyCard key={study.id} study={study} />
              ))}
            </div>
          )}
          <Pagination
            page={page}
            totalPages={status.results.totalPages}
            onPage={(p) => void runSearch(query, selected, p)}
          />
        </section>
      )}
    </div>
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
          <span key={item} className="px-2 text-slate-400">
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
