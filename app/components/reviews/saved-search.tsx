import { useState, type FormEvent } from "react";
import { Button } from "~/components/ui/button";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import type { ApiReviewSource } from "~/lib/reviews";
import { ReviewApiError, reviewsApi } from "~/browser/reviews-client";
import { PROVIDER_LABELS } from "~/lib/search-params";

const select =
  "h-9 rounded-md border border-slate-300 bg-white px-2 text-sm shadow-sm focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:outline-none";

/** Longest query a saved search keeps (the search page's limit). */
const MAX_QUERY = 500;

/** The database a file source is marked with (details.savedSearch), or null. */
export function savedSearchDatabase(source: Pick<ApiReviewSource, "details">): string | null {
  const mark = source.details.savedSearch as { database?: unknown } | undefined;
  return typeof mark?.database === "string" && mark.database in PROVIDER_LABELS ? mark.database : null;
}

function DatabaseSelect({
  id,
  name,
  defaultValue,
  required,
}: {
  id: string;
  name: string;
  defaultValue?: string;
  required?: boolean;
}) {
  return (
    <select id={id} name={name} defaultValue={defaultValue ?? ""} required={required} className={`${select} block`}>
      <option value="">{required ? "Choose the database" : "Not a saved search"}</option>
      {Object.entries(PROVIDER_LABELS).map(([id, label]) => (
        <option key={id} value={id}>
          {label}
        </option>
      ))}
    </select>
  );
}

/**
 * The import form's optional fields (`searchDatabase`, `searchQuery`): the database and query
 * that produced the file, so living updates re-run it.
 */
export function SavedSearchFields() {
  return (
    <details className="rounded-md border border-slate-200 p-2 text-sm" data-testid="import-saved-search">
      <summary className="cursor-pointer text-brand-700">
        Re-run this file in living updates (a database export)
      </summary>
      <p className="mt-1 text-xs text-slate-600">
        Give the database and the query that produced the file: living updates then run the query again and add what is
        new.
      </p>
      <div className="mt-2 flex flex-wrap gap-3">
        <div>
          <Label htmlFor="import-search-database">Searched database</Label>
          <DatabaseSelect id="import-search-database" name="searchDatabase" />
        </div>
        <div className="min-w-48 flex-1">
          <Label htmlFor="import-search-query">Query as run</Label>
          <Input
            id="import-search-query"
            name="searchQuery"
            maxLength={MAX_QUERY}
            placeholder="e.g. exercise AND depression"
          />
        </div>
      </div>
    </details>
  );
}

/**
 * A file source's saved-search mark in the Sources list: what it is marked with, and for the
 * review's owner a form to mark it, change the mark or remove it (PATCH
 * /api/reviews/{id}/sources/{sourceId}).
 */
export function SavedSearchControl({
  reviewId,
  source,
  canEdit,
  onChanged,
}: {
  reviewId: string;
  source: ApiReviewSource;
  canEdit: boolean;
  onChanged: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const database = savedSearchDatabase(source);

  async function save(savedSearch: { database: string; query: string } | null) {
    setBusy(true);
    setError(null);
    try {
      await reviewsApi.markSavedSearch(reviewId, source.id, savedSearch);
      setEditing(false);
      onChanged();
    } catch (e) {
      setError(e instanceof ReviewApiError ? e.message : "The saved search could not be changed.");
    } finally {
      setBusy(false);
    }
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    void save({ database: String(data.get("database") ?? ""), query: String(data.get("query") ?? "") });
  }

  const formId = `saved-search-${source.id}`;
  return (
    <div className="mt-0.5 text-xs" data-testid="source-saved-search">
      {database && !editing && (
        <span className="block text-emerald-800">
          Saved search, re-run by living updates: {PROVIDER_LABELS[database]}
        </span>
      )}
      {canEdit && !editing && (
        <span className="flex gap-2">
          <button type="button" className="text-brand-700 underline" onClick={() => setEditing(true)}>
            {database ? "Change saved search" : "Mark as saved search"}
          </button>
          {database && (
            <button type="button" className="text-brand-700 underline" disabled={busy} onClick={() => void save(null)}>
              Stop re-running
            </button>
          )}
        </span>
      )}
      {editing && (
        <form
          onSubmit={onSubmit}
          className="mt-1 space-y-2 rounded-md border border-slate-200 p-2"
          aria-label={`Saved search behind ${source.name}`}
        >
          <div>
            <Label htmlFor={`${formId}-database`}>Searched database</Label>
            <DatabaseSelect id={`${formId}-database`} name="database" defaultValue={database ?? ""} required />
          </div>
          <div>
            <Label htmlFor={`${formId}-query`}>Query as run</Label>
            <Input
              id={`${formId}-query`}
              name="query"
              required
              maxLength={MAX_QUERY}
              defaultValue={source.query ?? ""}
            />
          </div>
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={busy}>
              Save saved search
            </Button>
            <Button type="button" size="sm" variant="outline" onClick={() => setEditing(false)}>
              Cancel
            </Button>
          </div>
        </form>
      )}
      {error && (
        <p role="alert" className="text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
