import { Link } from "@remix-run/react";
import { Trash2 } from "lucide-react";
import { Button } from "~/components/ui/button";
import { formatAuthors, formatPublicationDate, PROVIDER_LABELS } from "~/lib/format";
import { MIN_STUDIES, selectionHintText } from "~/lib/meta-analysis/page-logic";
import type { MetaStudy } from "~/browser/meta-selection";
import { prismaCountsFromReview } from "~/lib/reviews";
import type { ReviewData, ReviewSource } from "./types";

/**
 * The studies of /meta-analysis (SPEC §2): the selection (or a review's studies included at full
 * text, with where they and their data come from), the hint for 0, 1 and 2+ studies, and a remove
 * button per study (disabled while busy).
 */
export function SelectedStudies({
  selection,
  fromReview,
  reviewId,
  reviewError,
  reviewData,
  busy,
  onRemove,
}: {
  selection: readonly MetaStudy[];
  fromReview: ReviewSource | null;
  reviewId: string | null;
  reviewError: string | null;
  reviewData: ReviewData | null;
  busy: boolean;
  onRemove: (id: number) => void;
}) {
  const count = selection.length;
  return (
    <section
      aria-labelledby="selected-heading"
      className="mt-6 rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="selected-heading" className="text-lg font-semibold text-slate-900">
          {fromReview ? `Included studies of “${fromReview.title}”` : "Selected studies"} ({count})
        </h2>
        {count === 0 && (
          <Button asChild variant="outline" size="sm">
            <Link to="/search">Find studies</Link>
          </Button>
        )}
      </div>
      {reviewError && (
        <p role="alert" className="mt-1 text-sm text-red-700">
          {reviewError}
        </p>
      )}
      {fromReview && (
        <p className="mt-1 text-xs text-slate-600" data-testid="review-source">
          From the systematic review: {prismaCountsFromReview(fromReview.prisma).included} studies included at full
          text; the report uses the review&apos;s PRISMA 2020 flow
          {fromReview.prisma.updated
            ? ` (the template for updated reviews: ${fromReview.prisma.updated.previousStudies} previous and ${fromReview.prisma.updated.newFlow.included} new studies)`
            : ""}
          .{" "}
          <Link className="text-brand-700 underline" to={`/reviews/${encodeURIComponent(reviewId ?? "")}?tab=prisma`}>
            Back to the review
          </Link>
        </p>
      )}
      {reviewData && (
        <p className="mt-1 text-xs text-slate-600" data-testid="review-data-source">
          Data from the review&apos;s Data extraction: {reviewData.outcomes.join(", ")} — the same outcome types,
          measures, values and corrections the review pools ({reviewData.rows.length}{" "}
          {reviewData.rows.length === 1 ? "row" : "rows"}).
        </p>
      )}
      <p
        data-testid="selection-hint"
        className={`mt-1 text-sm ${count >= MIN_STUDIES ? "text-emerald-700" : "text-slate-600"}`}
      >
        {selectionHintText(count)}
      </p>
      {count > 0 && (
        <ul className="mt-4 space-y-2" aria-label="Selected studies">
          {selection.map((s) => (
            <li
              key={s.id}
              data-testid="meta-page-study"
              className="flex items-start gap-3 rounded-lg border border-slate-200 p-3"
            >
              <div className="min-w-0 flex-1">
                <p className="text-sm font-medium text-slate-900">{s.title}</p>
                <p className="text-xs text-slate-600">
                  {[
                    formatAuthors(s.authors),
                    s.journal,
                    formatPublicationDate(s.publicationDate),
                    PROVIDER_LABELS[s.source],
                  ]
                    .filter(Boolean)
                    .join(" · ")}
                </p>
              </div>
              <Button
                variant="ghost"
                size="icon"
                className="size-8 shrink-0 text-slate-500 hover:bg-red-50 hover:text-red-700"
                aria-label={`Remove "${s.title}" from the meta-analysis`}
                disabled={busy}
                onClick={() => onRemove(s.id)}
              >
                <Trash2 aria-hidden />
              </Button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
