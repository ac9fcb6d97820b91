import { Download, Loader2 } from "lucide-react";
import { useEffect, useState } from "react";
import { Button } from "~/components/ui/button";
import type { ChecklistItem, ChecklistStatus, PrismaChecklist } from "~/lib/prisma-checklist";
import { reviewsApi } from "~/browser/reviews-client";

const STATUS_LABEL: Record<ChecklistStatus, string> = {
  reported: "Reported",
  not_applicable: "Not applicable",
  missing: "To add",
};
const STATUS_CLASS: Record<ChecklistStatus, string> = {
  reported: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  not_applicable: "bg-slate-100 text-slate-700 ring-slate-200",
  missing: "bg-amber-50 text-amber-900 ring-amber-200",
};

function ItemsTable({ items, caption }: { items: ChecklistItem[]; caption: string }) {
  return (
    // Focusable, so the keyboard can scroll the table sideways on a narrow screen.
    <div className="overflow-x-auto" role="region" aria-label={caption} tabIndex={0}>
      <table className="w-full min-w-[36rem] border-collapse text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr className="border-b border-slate-200 text-xs tracking-wide text-slate-500 uppercase">
            <th scope="col" className="py-2 pr-3">
              Item
            </th>
            <th scope="col" className="py-2 pr-3">
              Topic
            </th>
            <th scope="col" className="py-2 pr-3">
              Status
            </th>
            <th scope="col" className="py-2">
              What the review recorded, or what to add
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((i, index) => (
            <tr key={`${i.section}-${i.item}`} className="border-b border-slate-100 align-top">
              <td className="py-2 pr-3 font-medium text-slate-900">{i.item}</td>
              <td className="py-2 pr-3 text-slate-700">
                {(index === 0 || items[index - 1]!.section !== i.section) && (
                  <span className="block text-xs font-semibold text-slate-500">{i.section}</span>
                )}
                {i.topic}
              </td>
              <td className="py-2 pr-3">
                <span
                  className={`inline-block rounded-full px-2 py-0.5 text-xs whitespace-nowrap ring-1 ${STATUS_CLASS[i.status]}`}
                >
                  {STATUS_LABEL[i.status]}
                </span>
              </td>
              <td className="py-2 text-slate-700">{i.text}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The PRISMA 2020 checklist of a review (issue 31): each item with what the review recorded or what
 * the authors still have to add, the abstract checklist, a methods draft made of recorded facts only,
 * and the CSV download.
 */
export function PrismaChecklistSection({ reviewId }: { reviewId: string }) {
  const [checklist, setChecklist] = useState<PrismaChecklist | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    reviewsApi
      .prismaChecklist(reviewId)
      .then((c) => live && setChecklist(c))
      .catch(
        (e: unknown) => live && setError(e instanceof Error ? e.message : "The PRISMA checklist could not be loaded."),
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
  if (!checklist)
    return <Loader2 className="size-5 animate-spin text-slate-500" aria-label="Loading the PRISMA checklist" />;
  const { counts } = checklist;
  return (
    <section aria-labelledby="prisma-checklist-heading" className="space-y-3" data-testid="prisma-checklist">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="prisma-checklist-heading" className="text-lg font-semibold text-slate-900">
          PRISMA 2020 checklist
        </h2>
        <Button asChild variant="outline" size="sm">
          <a href={reviewsApi.exportUrl(reviewId, "checklist")} download data-testid="export-checklist">
            <Download aria-hidden />
            Checklist (CSV)
          </a>
        </Button>
      </div>
      <p className="text-sm text-slate-600">
        {counts.reported} of {checklist.items.length} items are filled in from what this review recorded,{" "}
        {counts.not_applicable} do not apply yet and {counts.missing} are for you to write (each says what to add). Page
        et al., BMJ 2021;372:n71.
      </p>
      <ItemsTable items={checklist.items} caption="PRISMA 2020 checklist" />
      <details className="rounded-md border border-slate-200 p-3">
        <summary className="cursor-pointer text-sm font-medium text-slate-900">
          PRISMA 2020 for Abstracts (12 items)
        </summary>
        <div className="mt-2">
          <ItemsTable items={checklist.abstractItems} caption="PRISMA 2020 for Abstracts checklist" />
        </div>
      </details>
      <div className="space-y-1">
        <h3 className="text-sm font-semibold text-slate-900">Methods draft</h3>
        {checklist.methodsDraft ? (
          <p
            className="rounded-md bg-slate-50 p-3 text-sm whitespace-pre-wrap text-slate-800"
            data-testid="methods-draft"
          >
            {checklist.methodsDraft}
          </p>
        ) : (
          <p className="text-sm text-slate-600">
            Nothing to draft yet: record the criteria, import records and screen them first.
          </p>
        )}
        <p className="text-xs text-slate-500">Built only from what the review recorded; edit it into your own words.</p>
      </div>
    </section>
  );
}
