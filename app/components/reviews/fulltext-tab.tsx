import { Check, Download, Globe, HelpCircle, Loader2, Paperclip, X } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import type { ApiReviewRecord, ScreeningDecision } from "~/lib/reviews";
import { ReviewApiError, reviewsApi, type ReviewWithSources } from "~/browser/reviews-client";
import { toast } from "~/browser/toast";

const messageOf = (e: unknown, fallback: string) => (e instanceof ReviewApiError ? e.message : fallback);

function ReportCard({
  review,
  record,
  onDone,
}: {
  review: ReviewWithSources;
  record: ApiReviewRecord;
  onDone: () => Promise<void>;
}) {
  const [reason, setReason] = useState(record.fullText.reason ?? "");
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  async function run(label: string, fn: () => Promise<unknown>, success?: string) {
    setBusy(label);
    setProblem(null);
    try {
      await fn();
      if (success) toast({ title: success });
      await onDone();
    } catch (e) {
      setProblem(messageOf(e, "Please try again."));
    } finally {
      setBusy(null);
    }
  }

  function decide(decision: ScreeningDecision) {
    if (decision === "exclude" && !reason) {
      setProblem("Choose a reason to exclude this report.");
      return;
    }
    void run(decision, () =>
      reviewsApi.decide(review.id, record.id, {
        stage: "full_text",
        decision,
        reason: decision === "include" ? null : reason || null,
      }),
    );
  }

  return (
    <li className="rounded-lg border border-slate-200 p-4" data-testid="fulltext-record" data-record-id={record.id}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div>
          <h3 className="font-medium text-slate-900">{record.title}</h3>
          <p className="text-xs text-slate-600">
            {[record.journal, record.year, record.doi && `doi:${record.doi}`].filter(Boolean).join(" · ")}
          </p>
        </div>
        <Badge
          variant={
            record.fullText.decision === "include"
              ? "default"
              : record.fullText.decision === "exclude"
                ? "destructive"
                : "secondary"
          }
          data-testid="fulltext-decision"
        >
          {record.fullText.decision
            ? `${record.fullText.decision}${record.fullText.reason ? `: ${record.fullText.reason}` : ""}`
            : "not assessed"}
        </Badge>
      </div>
      <div className="mt-3 flex flex-wrap items-center gap-2 text-sm">
        {record.fullText.attached ? (
          <a
            className="inline-flex items-center gap-1 text-brand-700 underline"
            href={reviewsApi.fullTextUrl(review.id, record.id)}
            download
          >
            <Download className="size-4" aria-hidden /> Full text
          </a>
        ) : (
          <span className="text-slate-500">No full text attached.</span>
        )}
        <label className="inline-flex cursor-pointer items-center gap-1 rounded-md border border-slate-300 px-2 py-1 text-sm hover:bg-slate-50">
          <Paperclip className="size-4" aria-hidden /> Attach PDF
          <input
            type="file"
            accept="application/pdf,.pdf"
            className="sr-only"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) void run("attach", () => reviewsApi.attachPdf(review.id, record.id, file), "PDF attached");
              e.target.value = "";
            }}
          />
        </label>
        {(record.doi || record.pmid) && (
          <Button
            size="sm"
            variant="outline"
            disabled={busy !== null}
            onClick={() =>
              run("oa", () => reviewsApi.fetchOpenAccess(review.id, record.id), "Open-access copy attached")
            }
          >
            {busy === "oa" ? <Loader2 className="animate-spin" aria-hidden /> : <Globe aria-hidden />} Find open-access
            copy
          </Button>
        )}
      </div>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <Button
          size="sm"
          className="bg-emerald-700 hover:bg-emerald-800"
          disabled={busy !== null}
          onClick={() => decide("include")}
        >
          <Check aria-hidden /> Include
        </Button>
        <select
          aria-label="Reason for exclusion"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          className="h-9 rounded-md border border-slate-300 bg-white px-2 text-sm"
        >
          <option value="">Reason (required to exclude)</option>
          {review.exclusionReasons.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <Button size="sm" variant="destructive" disabled={busy !== null} onClick={() => decide("exclude")}>
          <X aria-hidden /> Exclude
        </Button>
        <Button size="sm" variant="outline" disabled={busy !== null} onClick={() => decide("maybe")}>
          <HelpCircle aria-hidden /> Maybe
        </Button>
        {record.fullText.decision && (
          <Button
            size="sm"
            variant="ghost"
            disabled={busy !== null}
            onClick={() => run("undo", () => reviewsApi.undoRecord(review.id, record.id, "full_text"))}
          >
            Undo
          </Button>
        )}
      </div>
      {problem && (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {problem}
        </p>
      )}
    </li>
  );
}

/**
 * The Full text tab: the records included at title/abstract; attach each PDF (upload or the
 * open-access copy) and include or exclude it (a reason is required to exclude).
 */
export function FullTextTab({ review, onChanged }: { review: ReviewWithSources; onChanged: () => void }) {
  const [records, setRecords] = useState<ApiReviewRecord[] | null>(null);
  const load = useCallback(async () => {
    const { records: list } = await reviewsApi.records(review.id, { stage: "full_text" });
    setRecords(list);
  }, [review.id]);

  useEffect(() => {
    load().catch((e: unknown) =>
      toast({ title: "Reports not loaded", description: messageOf(e, "Please reload."), variant: "destructive" }),
    );
  }, [load]);

  const done = useCallback(async () => {
    await load();
    onChanged();
  }, [load, onChanged]);

  if (!records) return <Loader2 className="size-5 animate-spin text-slate-500" aria-label="Loading" />;
  const assessed = records.filter((r) => r.fullText.decision).length;
  return (
    <section className="space-y-3">
      <p className="text-sm text-slate-700" data-testid="fulltext-progress">
        {assessed} of {records.length} reports assessed ·{" "}
        {records.filter((r) => r.fullText.decision === "include").length} included
      </p>
      {records.length === 0 ? (
        <p className="text-sm text-slate-600">
          Records you include at title/abstract appear here for full-text screening.
        </p>
      ) : (
        <ul className="space-y-3">
          {records.map((r) => (
            <ReportCard key={r.id} review={review} record={r} onDone={done} />
          ))}
        </ul>
      )}
    </section>
  );
}
