import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { BookmarkPlus, ChevronDown, ListChecks, Loader2, Trash2 } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { Button } from "~/components/ui/button";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "~/components/ui/dialog";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import {
  customRangeError,
  formFromStoredSearch,
  toStoredFilters,
  type SearchFormState,
  type StoredSearchFilters,
} from "~/lib/search-params";
import { toast } from "~/browser/toast";

/** One row of GET /api/saved-searches. */
export interface SavedSearch {
  id: number | string;
  name: string;
  query: string;
  filters: StoredSearchFilters;
  createdAt: string;
}

export const SAVED_SEARCH_NAME_MAX = 100;

export interface SavedSearchesProps {
  /** The current search form; its query and filters are what gets saved. */
  form: SearchFormState;
  /** Runs a saved search; `params` are the form fields to apply (query, filters, databases). */
  onRun: (saved: SavedSearch, params: Partial<SearchFormState>) => void;
}

/** 'Save search' and the 'Saved searches' menu, for signed-in users (SPEC §1 saved searches). */
export function SavedSearches({ form, onRun }: SavedSearchesProps) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      <SaveSearchButton form={form} />
      <SavedSearchesMenu onRun={onRun} />
    </div>
  );
}

interface Problem {
  title: string;
  message: string;
}

function validateName(name: string): Problem | null {
  if (!name) return { title: "Name required", message: "Please enter a name for your search." };
  if (name.length > SAVED_SEARCH_NAME_MAX) {
    return { title: "Name too long", message: `Name must be at most ${SAVED_SEARCH_NAME_MAX} characters` };
  }
  return null;
}

async function errorMessage(response: Response): Promise<string | null> {
  const body = (await response.json().catch(() => null)) as { message?: unknown } | null;
  return typeof body?.message === "string" ? body.message : null;
}

export function SaveSearchButton({ form }: { form: SearchFormState }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [problem, setProblem] = useState<Problem | null>(null);
  const [saving, setSaving] = useState(false);
  const query = form.query.trim();

  function onOpenChange(next: boolean) {
    if (next) {
      setName(query.slice(0, SAVED_SEARCH_NAME_MAX));
      setProblem(null);
    }
    setOpen(next);
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const trimmed = name.trim();
    const rangeError = customRangeError(form);
    const invalid = validateName(trimmed) ?? (rangeError ? { title: "Invalid date range", message: rangeError } : null);
    setProblem(invalid);
    if (invalid || saving) return;
    setSaving(true);
    try {
      const response = await fetch("/api/saved-searches", {
        method: "POST",
        credentials: "include",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: trimmed, query, filters: toStoredFilters(form) }),
      });
      if (!response.ok) {
        const message = await errorMessage(response);
        setProblem(
          response.status === 401
            ? { title: "Sign In Required", message: "Please sign in to save searches." }
            : {
                title: "Could not save search",
                message: message ?? "Failed to save search. Please try again.",
              },
        );
        return;
      }
      toast({ title: "Search saved", description: `"${trimmed}" was added to your saved searches.` });
      setOpen(false);
    } catch (error) {
      console.warn("Saving the search failed", error);
      setProblem({ title: "Could not save search", message: "Failed to save search. Please try again." });
    } finally {
      setSaving(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm" disabled={!query} title={query ? undefined : "Enter a query to save it"}>
          <BookmarkPlus aria-hidden />
          Save search
        </Button>
      </DialogTrigger>
      <DialogContent className="max-w-md">
        <DialogHeader>
          <DialogTitle>Save search</DialogTitle>
        </DialogHeader>
        <DialogDescription>
          Save &ldquo;{query}&rdquo; with its filters and databases to run it again later.
        </DialogDescription>
        <form onSubmit={onSubmit} noValidate className="mt-4 space-y-3">
          <div className="space-y-1">
            <Label htmlFor={`${id}-name`}>Name</Label>
            <Input
              id={`${id}-name`}
              value={name}
              autoFocus
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? `${id}-problem` : `${id}-count`}
              onChange={(e) => setName(e.target.value)}
            />
            <p id={`${id}-count`} className="text-right text-xs text-slate-500">
              {name.trim().length}/{SAVED_SEARCH_NAME_MAX}
            </p>
          </div>
          {problem && (
            <div
              id={`${id}-problem`}
              role="alert"
              className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800"
            >
              <p className="font-semibold">{problem.title}</p>
              <p>{problem.message}</p>
            </div>
          )}
          <DialogFooter className="mt-0">
            <DialogClose asChild>
              <Button type="button" variant="ghost">
                Cancel
              </Button>
            </DialogClose>
            <Button type="submit" disabled={saving}>
              {saving && <Loader2 className="animate-spin" aria-hidden />}
              {saving ? "Saving..." : "Save"}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

type ListState = { kind: "loading" } | { kind: "error" } | { kind: "done"; items: SavedSearch[] };

function readSavedSearches(body: unknown): SavedSearch[] | null {
  const list = (body as { savedSearches?: unknown } | null)?.savedSearches;
  if (!Array.isArray(list)) return null;
  return list
    .filter(
      (s): s is Record<string, unknown> =>
        typeof s === "object" &&
        s !== null &&
        (typeof s.id === "number" || typeof s.id === "string") &&
        typeof s.query === "string",
    )
    .map((s) => ({
      id: s.id as number | string,
      name: typeof s.name === "string" && s.name ? s.name : (s.query as string),
      query: s.query as string,
      filters: typeof s.filters === "object" && s.filters !== null ? (s.filters as StoredSearchFilters) : {},
      createdAt: typeof s.createdAt === "string" ? s.createdAt : "",
    }));
}

const ITEM_CLASS =
  "flex cursor-pointer items-center gap-2 rounded-md px-3 py-2 text-sm text-slate-700 outline-none select-none data-[disabled]:cursor-default data-[disabled]:opacity-60 data-[highlighted]:bg-slate-100 data-[highlighted]:text-slate-900";

/** The 'Saved searches' dropdown; the list is fetched each time it opens. */
export function SavedSearchesMenu({ onRun }: { onRun: SavedSearchesProps["onRun"] }) {
  const [state, setState] = useState<ListState>({ kind: "loading" });
  const [deleting, setDeleting] = useState<Set<SavedSearch["id"]>>(new Set());

  async function load() {
    setState({ kind: "loading" });
    try {
      const response = await fetch("/api/saved-searches", { credentials: "include" });
      if (!response.ok)
        throw new Error(`${response.status}: ${await response.text().catch(() => response.statusText)}`);
      const items = readSavedSearches(await response.json());
      if (!items) throw new Error("Unexpected saved searches response");
      setState({ kind: "done", items });
    } catch (error) {
      console.warn("Failed to load saved searches", error);
      setState({ kind: "error" });
    }
  }

  async function remove(saved: SavedSearch) {
    setDeleting((current) => new Set(current).add(saved.id));
    try {
      const response = await fetch(`/api/saved-searches/${encodeURIComponent(String(saved.id))}`, {
        method: "DELETE",
        credentials: "include",
      });
      if (!response.ok)
        throw new Error(`${response.status}: ${await response.text().catch(() => response.statusText)}`);
      setState((current) =>
        current.kind === "done" ? { kind: "done", items: current.items.filter((s) => s.id !== saved.id) } : current,
      );
      toast({ title: "Saved search deleted", description: `"${saved.name}" was removed.` });
    } catch (error) {
      console.warn("Deleting a saved search failed", error);
      toast({
        title: "Failed to delete saved search",
        description: "Please try again.",
        variant: "destructive",
      });
    } finally {
      setDeleting((current) => {
        const next = new Set(current);
        next.delete(saved.id);
        return next;
      });
    }
  }

  return (
    <DropdownMenu.Root
      modal={false}
      onOpenChange={(open) => {
        if (open) void load();
      }}
    >
      <DropdownMenu.Trigger asChild>
        <Button variant="outline" size="sm">
          <ListChecks aria-hidden />
          Saved searches
          <ChevronDown className="text-slate-400" aria-hidden />
        </Button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="end"
          sideOffset={6}
          className="z-50 max-h-80 w-80 max-w-[calc(100vw-2rem)] overflow-y-auto rounded-lg border border-slate-200 bg-white p-1 text-slate-900 shadow-lg"
        >
          <DropdownMenu.Label className="px-3 py-2 text-xs font-semibold tracking-wide text-slate-500 uppercase">
            Saved searches
          </DropdownMenu.Label>
          {state.kind === "loading" && (
            <div role="status" className="flex items-center gap-2 px-3 py-3 text-sm text-slate-500">
              <Loader2 className="size-4 animate-spin" aria-hidden />
              Loading...
            </div>
          )}
          {state.kind === "error" && (
            <>
              <p role="alert" className="px-3 py-2 text-sm text-red-700">
                Failed to load saved searches
              </p>
              <DropdownMenu.Item
                className={ITEM_CLASS}
                onSelect={(event) => {
                  event.preventDefault();
                  void load();
                }}
              >
                Try again
              </DropdownMenu.Item>
            </>
          )}
          {state.kind === "done" && state.items.length === 0 && (
            <p className="px-3 py-3 text-sm text-slate-500">No saved searches yet</p>
          )}
          {state.kind === "done" &&
            state.items.map((saved) => {
              const busy = deleting.has(saved.id);
              return (
                <div key={saved.id} data-testid="saved-search" className="flex items-center gap-1">
                  <DropdownMenu.Item
                    disabled={busy}
                    className={`${ITEM_CLASS} min-w-0 flex-1 flex-col items-start gap-0`}
                    onSelect={() => onRun(saved, formFromStoredSearch(saved))}
                  >
                    <span className="w-full truncate font-medium text-slate-900">{saved.name}</span>
                    {saved.name !== saved.query && (
                      <span className="w-full truncate text-xs text-slate-500">{saved.query}</span>
                    )}
                  </DropdownMenu.Item>
                  <DropdownMenu.Item
                    disabled={busy}
                    aria-label={`Delete saved search ${saved.name}`}
                    className={`${ITEM_CLASS} shrink-0 px-2 text-slate-500 data-[highlighted]:bg-red-50 data-[highlighted]:text-red-700`}
                    onSelect={(event) => {
                      event.preventDefault();
                      void remove(saved);
                    }}
                  >
                    {busy ? (
                      <Loader2 className="size-4 animate-spin" aria-hidden />
                    ) : (
                      <Trash2 className="size-4" aria-hidden />
                    )}
                  </DropdownMenu.Item>
                </div>
              );
            })}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
