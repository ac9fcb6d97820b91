import { Loader2, RefreshCw } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { Button } from "~/components/ui/button";
import type { ApiReview } from "~/lib/reviews";
import { reviewsApi, type LivingUpdate } from "~/browser/reviews-client";

const SCHEDULES = [
  { value: "", label: "Not living (no scheduled updates)" },
  { value: "weekly", label: "Weekly" },
  { value: "monthly", label: "Monthly" },
] as const;

const when = (iso: string) => new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });

/**
 * Living review (issue 31): the schedule on which the review's searches are re-run, an update on
 * demand, and the recorded updates (what each found and what failed). New records arrive as
 * sources of their own and wait in the screening queue, ranked by the review's model.
 */
export function LivingPanel({
  review,
  onChanged,
  onUpdated,
}: {
  review: Pick<ApiReview, "id" | "living">;
  /** After an update that brought new records (the review's counts changed). */
  onChanged?: () => void;
  /** After every finished update (the PRISMA flow of an updated review changes even without new records). */
  onUpdated?: () => void;
}) {
  const [schedule, setSchedule] = useState(review.living.schedule ?? "");
  const [nextRunAt, setNextRunAt] = useState(review.living.nextRunAt);
  const [updates, setUpdates] = useState<LivingUpdate[] | null>(null);
  const [busy, setBusy] = useState<"schedule" | "update" | null>(null);
  const [message, setMessage] = useState<{ kind: "ok" | "error"; text: string } | null>(null);

  const load = useCallback(() => {
    reviewsApi
      .livingUpdates(review.id)
      .then((r) => setUpdates(r.updates))
      .catch(() => setUpdates([]));
  }, [review.id]);
  useEffect(load, [load]);

  async function changeSchedule(value: string) {
    setSchedule(value);
    setBusy("schedule");
    setMessage(null);
    try {
      const { review: updated } = await reviewsApi.update(review.id, { living: { schedule: value || null } });
      setNextRunAt(updated.living.nextRunAt);
      setMessage({
        kind: "ok",
        text: value
          ? `The searches will be re-run ${value === "weekly" ? "every week" : "every month"}.`
          : "Scheduled updates are off.",
      });
    } catch (error) {
      setMessage({ kind: "error", text: error instanceof Error ? error.message : "The schedule could not be saved." });
    } finally {
      setBusy(null);
    }
  }

  async function updateNow() {
    setBusy("update");
    setMessage(null);
    try {
      const r = await reviewsApi.runLivingUpdate(review.id);
      const failed = r.failed.length ? ` ${r.failed.map((f) => `${f.source}: ${f.reason}`).join("; ")}` : "";
      setMessage({
        kind: r.failed.length ? "error" : "ok",
        text: `${r.searchesRun} search${r.searchesRun === 1 ? "" : "es"} re-run: ${r.newRecords} new record${r.newRecords === 1 ? "" : "s"}, ${r.duplicatesRemoved} already in the review.${failed}`,
      });
      load();
      if (r.newRecords > 0) onChanged?.();
      onUpdated?.();
    } catch (error) {
      setMessage({ kind: "error", text: error instanceof Error ? error.message : "The update failed." });
    } finally {
      setBusy(null);
    }
  }

  return (
    <section
      aria-labelledby="living-heading"
      className="space-y-3 rounded-md border border-slate-200 p-4"
      data-testid="living-review"
    >
      <h2 id="living-heading" className="text-lg font-semibold text-slate-900">
        Living review
      </h2>
      <p className="text-sm text-slate-600">
        Re-run this review&apos;s searches (and the imported files marked as saved searches in the Records tab) on a
        schedule or now. New records are de-duplicated against everything already here, arrive as a source of their own
        and wait in the screening queue, ranked by the review&apos;s model; you get an e-mail when an update finds
        something.
      </p>
      <div className="flex flex-wrap items-end gap-3">
        <label className="text-sm text-slate-700">
          <span className="block font-medium">Scheduled updates</span>
          <select
            className="mt-1 rounded-md border border-slate-300 px-2 py-1.5 text-sm"
            value={schedule}
            disabled={busy !== null}
            onChange={(e) => void changeSchedule(e.target.value)}
          >
            {SCHEDULES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <Button variant="outline" size="sm" onClick={() => void updateNow()} disabled={busy !== null}>
          {busy === "update" ? <Loader2 className="animate-spin" aria-hidden /> : <RefreshCw aria-hidden />}
          Update now
        </Button>
        {schedule && nextRunAt && <p className="text-xs text-slate-500">Next update: {when(nextRunAt)}</p>}
      </div>
      {message && (
        <p
          role={message.kind === "error" ? "alert" : "status"}
          className={`text-sm ${message.kind === "error" ? "text-red-700" : "text-emerald-800"}`}
        >
          {message.text}
        </p>
      )}
      {updates && updates.length > 0 && (
        <div className="overflow-x-auto" role="region" aria-label="Updates of this review" tabIndex={0}>
          <table className="w-full min-w-[32rem] text-left text-sm">
            <caption className="sr-only">Updates of this review</caption>
            <thead>
              <tr className="border-b border-slate-200 text-xs tracking-wide text-slate-500 uppercase">
                <th scope="col" className="py-1.5 pr-3">
                  Ran
                </th>
                <th scope="col" className="py-1.5 pr-3">
                  How
                </th>
                <th scope="col" className="py-1.5 pr-3">
                  New records
                </th>
                <th scope="col" className="py-1.5 pr-3">
                  Already here
                </th>
                <th scope="col" className="py-1.5">
                  Failed
                </th>
              </tr>
            </thead>
            <tbody>
              {updates.map((u) => (
                <tr key={u.id} className="border-b border-slate-100 align-top">
                  <td className="py-1.5 pr-3">{when(u.ranAt)}</td>
                  <td className="py-1.5 pr-3">
                    {u.trigger === "schedule" ? "scheduled" : "by hand"}
                    {u.status === "running" ? " (running)" : ""}
                  </td>
                  <td className="py-1.5 pr-3">{u.newRecords}</td>
                  <td className="py-1.5 pr-3">{u.duplicatesRemoved}</td>
                  <td className="py-1.5">
                    {u.failed.length ? u.failed.map((f) => `${f.source}: ${f.reason}`).join("; ") : "none"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
