import { Link } from "@remix-run/react";
import { ListPlus, Loader2 } from "lucide-react";
import { useEffect, useState } from "react";
import { Button } from "~/components/ui/button";
import {
  Dialog,
  DialogCloseButton,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogTitle,
  DialogTrigger,
} from "~/components/ui/dialog";
import { Input } from "~/components/ui/input";
import { PROVIDER_LABELS } from "~/lib/format";
import { SEARCH_IMPORT_PER_DATABASE, searchImportPlan, type ApiReview } from "~/lib/reviews";
import { ReviewApiError, reviewsApi, type ImportResult } from "~/browser/reviews-client";

/**
 * 'Add this search to a review' on /search: picks a review (or creates one) and imports every
 * record of the search — up to 'All available' per database, not only the page shown. The dialog
 * states the most each database can bring; the count added is the import's own.
 */
export function AddToReviewButton({
  params,
  providers,
}: {
  params: URLSearchParams;
  providers: Parameters<typeof searchImportPlan>[0];
}) {
  const plan = searchImportPlan(providers);
  const [open, setOpen] = useState(false);
  const [reviews, setReviews] = useState<ApiReview[] | null>(null);
  const [choice, setChoice] = useState<string>("new");
  const [title, setTitle] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<{ reviewId: string; result: ImportResult } | null>(null);

  useEffect(() => {
    if (!open) return;
    setDone(null);
    setError(null);
    fetch("/api/reviews")
      .then((r) => (r.ok ? (r.json() as Promise<{ reviews: ApiReview[] }>) : { reviews: [] }))
      .then((b) => {
        setReviews(b.reviews);
        setChoice(b.reviews[0]?.id ?? "new");
      })
      .catch((e: unknown) => {
        console.warn("reviews not listed", e);
        setReviews([]);
      });
  }, [open]);

  async function add() {
    setBusy(true);
    setError(null);
    try {
      const reviewId =
        choice === "new"
          ? (await reviewsApi.create({ title: title.trim() || `Review: ${params.get("q") ?? "search"}` })).review.id
          : choice;
      const body = Object.fromEntries([...params].filter(([k]) => k !== "page" && k !== "limit"));
      const result = await reviewsApi.importSearch(reviewId, body);
      setDone({ reviewId, result });
    } catch (e) {
      setError(e instanceof ReviewApiError ? e.message : "The records could not be added. Please try again.");
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm" data-testid="add-to-review">
          <ListPlus aria-hidden /> Add this search to a review
        </Button>
      </DialogTrigger>
      <DialogContent className="max-w-lg p-5">
        <DialogTitle>Add the search to a review</DialogTitle>
        <DialogDescription>
          Every record of this search, not only the page shown — up to {SEARCH_IMPORT_PER_DATABASE} per database —
          becomes a record of the review, de-duplicated against what it already holds.
        </DialogDescription>
        <p className="mt-2 text-sm text-slate-600" data-testid="add-to-review-plan">
          {plan.databases
            .map(
              (d) =>
                `${PROVIDER_LABELS[d.provider] ?? d.provider}: up to ${d.upTo.toLocaleString("en")} of ${d.hits.toLocaleString("en")}`,
            )
            .join("; ")}
          .{plan.databases.length > 1 && ` At most ${plan.upTo.toLocaleString("en")} records;`} Fewer when a database
          returns fewer than it reports or a record is a duplicate: the count added is shown when the import is done.
        </p>
        {done ? (
          <div className="mt-4 space-y-3 text-sm" data-testid="add-to-review-done">
            <p>
              {done.result.imported} records added, {done.result.duplicatesRemoved} duplicates merged.
            </p>
            <Button asChild>
              <Link to={`/reviews/${done.reviewId}?tab=screening`}>Open the review</Link>
            </Button>
          </div>
        ) : !reviews ? (
          <Loader2 className="mt-4 size-5 animate-spin text-slate-500" aria-label="Loading" />
        ) : (
          <div className="mt-4 space-y-2 text-sm">
            {reviews.map((r) => (
              <label key={r.id} className="flex items-center gap-2">
                <input
                  type="radio"
                  name="review"
                  value={r.id}
                  checked={choice === r.id}
                  onChange={() => setChoice(r.id)}
                />
                {r.title} <span className="text-xs text-slate-500">({r.counts.records} records)</span>
              </label>
            ))}
            <label className="flex items-center gap-2">
              <input
                type="radio"
                name="review"
                value="new"
                checked={choice === "new"}
                onChange={() => setChoice("new")}
              />
              New review
            </label>
            {choice === "new" && (
              <Input
                aria-label="New review title"
                placeholder="Review title"
                value={title}
                onChange={(e) => setTitle(e.target.value)}
                maxLength={300}
              />
            )}
            {error && (
              <p role="alert" className="text-red-700">
                {error}
              </p>
            )}
            <DialogFooter className="mt-0 pt-2">
              <Button onClick={add} disabled={busy} data-testid="add-to-review-confirm">
                {busy && <Loader2 className="animate-spin" aria-hidden />} Add records
              </Button>
            </DialogFooter>
          </div>
        )}
        {/* Last in the panel, so opening focuses the first review rather than the close button. */}
        <DialogCloseButton className="absolute top-3 right-3 size-8" />
      </DialogContent>
    </Dialog>
  );
}
