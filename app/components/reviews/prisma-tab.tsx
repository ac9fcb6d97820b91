import { Download, Loader2 } from "lucide-react";
import { useEffect, useState } from "react";
import { PrismaDiagram } from "~/components/meta-analysis/prisma-diagram";
import { PrismaChecklistSection } from "~/components/reviews/prisma-checklist";
import { Button } from "~/components/ui/button";
import { prismaCountsFromReview, type ReviewPrisma } from "~/lib/reviews";
import { reviewsApi } from "~/browser/reviews-client";

/** The PRISMA tab: the review's PRISMA 2020 flow from its decisions, the counts, the downloads and the PRISMA 2020 checklist. */
export function PrismaTab({ reviewId }: { reviewId: string }) {
  const [prisma, setPrisma] = useState<ReviewPrisma | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    reviewsApi
      .prisma(reviewId)
      .then((p) => live && setPrisma(p))
      .catch(
        (e: unknown) => live && setError(e instanceof Error ? e.message : "The PRISMA counts could not be loaded."),
      );
    return () => {
      live = false;
    };
  }, [reviewId]);

  if (error)
    return (
      <p role="alert" className="text-sm text-red-700">
        {error}
      </p>
    );
  if (!prisma) return <Loader2 className="size-5 animate-spin text-slate-500" aria-label="Loading" />;
  return (
    <section className="space-y-4">
      <div className="flex flex-wrap gap-2">
        {(["svg", "csv", "ris", "json"] as const).map((f) => (
          <Button key={f} asChild variant="outline" size="sm">
            <a href={reviewsApi.exportUrl(reviewId, f)} download data-testid={`export-${f}`}>
              <Download aria-hidden />
              {f === "svg"
                ? "PRISMA diagram (SVG)"
                : f === "json"
                  ? "Whole review (JSON)"
                  : `Records with decisions (${f.toUpperCase()})`}
            </a>
          </Button>
        ))}
      </div>
      {prisma.updated && (
        <figure className="space-y-1" data-testid="prisma-updated">
          <figcaption className="text-sm font-medium text-slate-800">
            Updated review: {prisma.updated.updates} living update{prisma.updated.updates === 1 ? "" : "s"}
            {prisma.updated.lastUpdateAt
              ? `, the last on ${new Date(prisma.updated.lastUpdateAt).toLocaleDateString("en-GB", { dateStyle: "medium" })}`
              : ""}{" "}
            (PRISMA 2020 template for updated reviews; the SVG download uses it)
          </figcaption>
          <PrismaDiagram
            id="review-prisma-updated"
            counts={prismaCountsFromReview(prisma.updated.newFlow)}
            update={{ previousStudies: prisma.updated.previousStudies, totalStudies: prisma.updated.totalStudies }}
          />
        </figure>
      )}
      {prisma.updated && (
        <p className="text-sm font-medium text-slate-800">
          The whole review (all records, every search and update together)
        </p>
      )}
      <PrismaDiagram id="review-prisma" counts={prismaCountsFromReview(prisma)} />
      <p className="text-xs text-slate-500">
        Records identified are the records brought into this review from each database or file (not the databases&apos;
        total hits). Until every record has a decision, each stage also states the records not yet decided (awaiting a
        decision or marked maybe), so every box adds up: records to screen = excluded + not yet decided + sought for
        retrieval. Reports not retrieved are full-text exclusions with the reason &ldquo;Full text not
        retrievable&rdquo;.
      </p>
      <PrismaChecklistSection reviewId={reviewId} />
    </section>
  );
}
