import { Loader2 } from "lucide-react";
import { useEffect, useState } from "react";
import { Button } from "~/components/ui/button";
import { robApi } from "~/browser/risk-of-bias-client";
import type { ApiGradeRating, ApiGradeSettings, GradeDomainName } from "~/lib/risk-of-bias/types";

const DOMAINS: readonly GradeDomainName[] = [
  "risk of bias",
  "inconsistency",
  "indirectness",
  "imprecision",
  "publication bias",
];
const RATE_UP: readonly ApiGradeRating["rateUp"][number]["reason"][] = [
  "large effect",
  "dose response",
  "plausible confounding",
];
const DOWNGRADE_WORDS: Record<0 | -1 | -2, string> = {
  0: "Not serious",
  [-1]: "Serious (−1)",
  [-2]: "Very serious (−2)",
};
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const slug = (s: string) => s.replace(/\s+/g, "-");

/**
 * The reviewer's GRADE settings for one outcome of the review (issue 28): change any domain's
 * rating (the computed one stays beside it in the meta-analysis), rate up (large effect, dose
 * response, plausible confounding: only ever by the reviewer), the assumed control risk of the
 * Summary of Findings and the imprecision decision threshold. Each change needs a justification.
 * Applied when the review's meta-analysis is run.
 */
export function GradeSettingsPanel({
  reviewId,
  outcome,
  canWrite,
}: {
  reviewId: string;
  outcome: { id: number; name: string };
  canWrite: boolean;
}) {
  const [loaded, setLoaded] = useState<ApiGradeSettings | null | undefined>(undefined);
  const [rating, setRating] = useState<ApiGradeRating>({ overrides: {}, rateUp: [] });
  const [risk, setRisk] = useState("");
  const [threshold, setThreshold] = useState("");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: "error" | "ok"; text: string } | null>(null);
  useEffect(() => {
    let live = true;
    robApi
      .gradeSettings(reviewId)
      .then(({ settings }) => {
        if (!live) return;
        const s = settings.find((x) => x.outcomeId === outcome.id) ?? null;
        setLoaded(s);
        setRating(s ? s.rating : { overrides: {}, rateUp: [] });
        setRisk(s?.assumedControlRisk != null ? String(Math.round(s.assumedControlRisk * 10000) / 10) : "");
        setThreshold(s?.decisionThreshold != null ? String(s.decisionThreshold) : "");
      })
      .catch(
        (e: unknown) =>
          live &&
          setMessage({
            kind: "error",
            text: e instanceof Error ? e.message : "The GRADE settings could not be loaded.",
          }),
      );
    return () => {
      live = false;
    };
  }, [reviewId, outcome.id]);
  const disabled = !canWrite || busy;
  const id = `grade-${outcome.id}`;

  async function save() {
    setMessage(null);
    const riskValue = risk.trim() === "" ? null : Number(risk) / 1000;
    const thresholdValue = threshold.trim() === "" ? null : Number(threshold);
    if (riskValue !== null && !(riskValue > 0 && riskValue < 1))
      return setMessage({
        kind: "error",
        text: "The assumed control risk is a number of events per 1,000 between 0 and 1,000.",
      });
    if (thresholdValue !== null && !Number.isFinite(thresholdValue))
      return setMessage({ kind: "error", text: "The decision threshold must be a number." });
    const missing = [
      ...Object.entries(rating.overrides)
        .filter(([, o]) => !o.justification.trim())
        .map(([d]) => d),
      ...rating.rateUp.filter((r) => !r.justification.trim()).map((r) => r.reason),
    ];
    if (missing.length) return setMessage({ kind: "error", text: `Give a justification for: ${missing.join(", ")}.` });
    setBusy(true);
    try {
      const { settings } = await robApi.saveGradeSettings(reviewId, outcome.id, {
        rating,
        assumedControlRisk: riskValue,
        decisionThreshold: thresholdValue,
      });
      setLoaded(settings);
      setMessage({ kind: "ok", text: "GRADE settings saved: they apply when the review's meta-analysis is run." });
    } catch (e) {
      setMessage({ kind: "error", text: e instanceof Error ? e.message : "The GRADE settings could not be saved." });
    } finally {
      setBusy(false);
    }
  }

  if (loaded === undefined && !message) {
    return (
      <p className="flex items-center gap-2 text-sm text-slate-600">
        <Loader2 className="size-4 animate-spin" aria-hidden /> Loading the GRADE settings…
      </p>
    );
  }
  return (
    <section aria-labelledby={`${id}-heading`} className="space-y-3" data-testid="grade-settings">
      <h2 id={`${id}-heading`} className="text-lg font-semibold text-slate-900">
        GRADE: {outcome.name}
      </h2>
      <p className="text-sm text-slate-700">
        The meta-analysis rates each domain from the numbers (risk of bias from these RoB 2 judgements, weighted by the
        studies&apos; weights). Change a rating here with a justification; the computed one is kept beside yours. Only
        you can rate up.
      </p>
      <div className="grid gap-3 md:grid-cols-2">
        {DOMAINS.map((d) => {
          const o = rating.overrides[d];
          return (
            <div key={d} className="space-y-1 rounded-md border border-slate-200 p-2">
              <label htmlFor={`${id}-${slug(d)}`} className="text-sm font-medium text-slate-800">
                {cap(d)}
              </label>
              <select
                id={`${id}-${slug(d)}`}
                className="h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm"
                value={o ? String(o.downgrade) : ""}
                disabled={disabled}
                onChange={(e) =>
                  setRating((r) => {
                    const overrides = { ...r.overrides };
                    if (e.target.value === "") delete overrides[d];
                    else
                      overrides[d] = {
                        downgrade: Number(e.target.value) as 0 | -1 | -2,
                        justification: o?.justification ?? "",
                      };
                    return { ...r, overrides };
                  })
                }
              >
                <option value="">As computed</option>
                {([0, -1, -2] as const).map((v) => (
                  <option key={v} value={v}>
                    {DOWNGRADE_WORDS[v]}
                  </option>
                ))}
              </select>
              {o && (
                <>
                  <label htmlFor={`${id}-${slug(d)}-why`} className="text-xs font-medium text-slate-700">
                    Justification for {d}
                  </label>
                  <textarea
                    id={`${id}-${slug(d)}-why`}
                    className="min-h-12 w-full rounded-md border border-slate-300 p-2 text-sm"
                    maxLength={2000}
                    required
                    disabled={disabled}
                    value={o.justification}
                    onChange={(e) =>
                      setRating((r) => ({
                        ...r,
                        overrides: { ...r.overrides, [d]: { ...o, justification: e.target.value } },
                      }))
                    }
                  />
                </>
              )}
            </div>
          );
        })}
      </div>
      <fieldset className="space-y-2 rounded-md border border-slate-200 p-2">
        <legend className="px-1 text-sm font-medium text-slate-800">Rate up (reviewer only)</legend>
        {RATE_UP.map((reason) => {
          const r = rating.rateUp.find((x) => x.reason === reason);
          const set = (next: ApiGradeRating["rateUp"][number] | null) =>
            setRating((cur) => ({
              ...cur,
              rateUp: [...cur.rateUp.filter((x) => x.reason !== reason), ...(next ? [next] : [])],
            }));
          return (
            <div key={reason} className="space-y-1">
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={!!r}
                  disabled={disabled}
                  onChange={(e) => set(e.target.checked ? { reason, levels: 1, justification: "" } : null)}
                />
                {cap(reason)}
              </label>
              {r && (
                <div className="flex flex-col gap-2 pl-6 sm:flex-row">
                  <label className="flex flex-col gap-1 text-xs font-medium text-slate-700">
                    Levels
                    <select
                      className="h-9 rounded-md border border-slate-300 bg-white px-2 text-sm"
                      value={r.levels}
                      disabled={disabled || reason !== "large effect"}
                      onChange={(e) => set({ ...r, levels: Number(e.target.value) as 1 | 2 })}
                    >
                      <option value={1}>+1</option>
                      {reason === "large effect" && <option value={2}>+2 (very large effect)</option>}
                    </select>
                  </label>
                  <label className="flex flex-1 flex-col gap-1 text-xs font-medium text-slate-700">
                    Justification for {reason}
                    <textarea
                      className="min-h-12 rounded-md border border-slate-300 p-2 text-sm"
                      maxLength={2000}
                      required
                      disabled={disabled}
                      value={r.justification}
                      onChange={(e) => set({ ...r, justification: e.target.value })}
                    />
                  </label>
                </div>
              )}
            </div>
          );
        })}
      </fieldset>
      <div className="grid gap-3 sm:grid-cols-2">
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-risk`} className="text-sm font-medium text-slate-800">
            Assumed control risk per 1,000 (Summary of Findings)
          </label>
          <input
            id={`${id}-risk`}
            type="number"
            inputMode="decimal"
            min={0}
            max={1000}
            step="any"
            className="h-9 rounded-md border border-slate-300 px-2 text-sm"
            placeholder="Pooled control-group risk"
            disabled={disabled}
            value={risk}
            onChange={(e) => setRisk(e.target.value)}
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-threshold`} className="text-sm font-medium text-slate-800">
            Decision threshold for imprecision (ratio for RR/OR, else the effect)
          </label>
          <input
            id={`${id}-threshold`}
            type="number"
            inputMode="decimal"
            step="any"
            className="h-9 rounded-md border border-slate-300 px-2 text-sm"
            placeholder="None: the null effect"
            disabled={disabled}
            value={threshold}
            onChange={(e) => setThreshold(e.target.value)}
          />
        </div>
      </div>
      {message && (
        <p
          role={message.kind === "error" ? "alert" : "status"}
          className={`text-sm ${message.kind === "error" ? "text-red-700" : "text-emerald-700"}`}
        >
          {message.text}
        </p>
      )}
      {canWrite && (
        <div className="flex flex-wrap items-center gap-2">
          <Button type="button" variant="outline" onClick={() => void save()} disabled={busy} data-testid="grade-save">
            {busy && <Loader2 className="animate-spin" aria-hidden />} Save GRADE settings
          </Button>
          {loaded && (
            <span className="text-xs text-slate-600">
              Last saved by {loaded.updatedBy} on {loaded.updatedAt.slice(0, 10)}
            </span>
          )}
        </div>
      )}
    </section>
  );
}
