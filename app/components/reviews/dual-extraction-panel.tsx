import { Check, Send } from "lucide-react";
import { useState } from "react";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Input } from "~/components/ui/input";
import type { ArmField, ArmKey } from "~/lib/arms";
import {
  type ArmValuesPair,
  type DualExtractionStudy,
  EXTRACTION_ARMS,
  EXTRACTION_FIELDS,
  valueProblem,
} from "~/lib/dual-extraction";
import type { ReviewExtractionStudy } from "~/lib/review-extraction";

const FIELD: Record<ArmField, string> = { events: "Events", groupSize: "n", mean: "Mean", sd: "SD" };
const ARM: Record<ArmKey, string> = { intervention: "Intervention", comparator: "Comparator" };
const show = (v: number | null | undefined) => (v === null || v === undefined ? "NR" : String(v));

async function post(path: string, json: unknown): Promise<{ study: DualExtractionStudy }> {
  const res = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(json),
  });
  const body = (await res.json().catch(() => ({}))) as { study: DualExtractionStudy; message?: string };
  if (!res.ok) throw new Error(body.message ?? `Request failed (${res.status})`);
  return body;
}

/** The reviewer's values as the table shows them (MetaMind's extraction with their own corrections). */
function valuesOf(study: ReviewExtractionStudy): ArmValuesPair {
  const pick = (arm: ArmKey) => ({
    events: study.result[arm].events,
    groupSize: study.result[arm].groupSize,
    mean: study.result[arm].mean,
    sd: study.result[arm].sd,
  });
  return { intervention: pick("intervention"), comparator: pick("comparator") };
}

function StudyBlock({
  base,
  study,
  dual,
  userId,
  canWrite,
  canResolve,
  onChange,
}: {
  base: string;
  study: ReviewExtractionStudy;
  dual: DualExtractionStudy;
  userId: string;
  canWrite: boolean;
  canResolve: boolean;
  onChange: (dual: DualExtractionStudy) => void;
}) {
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const both = dual.submissions.length >= 2;
  const differing = new Set(dual.differing.map((c) => `${c.arm}.${c.field}`));
  const consensus = new Map(dual.consensus.map((c) => [`${c.arm}.${c.field}`, c]));

  const act = async (fn: () => Promise<{ study: DualExtractionStudy }>) => {
    setBusy(true);
    setError(null);
    try {
      onChange((await fn()).study);
    } catch (e) {
      setError(e instanceof Error ? e.message : "Please try again.");
    } finally {
      setBusy(false);
    }
  };

  const saveConsensus = () => {
    const cells = [...differing].flatMap((key) => {
      const draft = drafts[key];
      if (draft === undefined) return [];
      const [arm, field] = key.split(".") as [ArmKey, ArmField];
      const value = draft.trim() === "" || draft.trim().toUpperCase() === "NR" ? null : Number(draft);
      return [{ arm, field, value }];
    });
    const problem = cells.map((c) => valueProblem(c.field, c.value)).find(Boolean);
    if (problem) return setError(problem);
    if (cells.length === 0) return setError("Enter a consensus value for a differing cell.");
    void act(() => post(`${base}/consensus`, { recordId: study.recordId, cells })).then(() => setDrafts({}));
  };

  return (
    <li className="rounded-md border border-slate-200 p-3" data-testid="dual-study">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-medium text-slate-900">{study.title}</span>
        <Badge variant="secondary">{dual.submissions.length} of 2 extractions</Badge>
        {dual.values && <Badge data-testid="consensus-complete">consensus complete</Badge>}
        {canWrite && !dual.mine && !both && (
          <Button
            size="sm"
            disabled={busy}
            onClick={() =>
              void act(() => post(`${base}/submissions`, { recordId: study.recordId, values: valuesOf(study) }))
            }
            data-testid="submit-extraction"
          >
            <Send aria-hidden /> Submit my values
          </Button>
        )}
        {canWrite && dual.mine && !both && (
          <Button
            size="sm"
            variant="outline"
            disabled={busy}
            onClick={() =>
              void act(() => post(`${base}/submissions`, { recordId: study.recordId, values: valuesOf(study) }))
            }
          >
            Re-submit my values
          </Button>
        )}
      </div>
      {!dual.revealed && (
        <p className="mt-1 text-xs text-slate-500">
          Blind: the other reviewer&apos;s values show once you have submitted yours.
        </p>
      )}
      {dual.revealed && (
        <table className="mt-2 text-sm" aria-label={`Extractions side by side: ${study.title}`}>
          <thead>
            <tr className="text-left text-xs text-slate-500">
              <th className="pr-3">Cell</th>
              {dual.submissions.map((s) => (
                <th key={s.userId} className="pr-3">
                  {s.userId === userId ? "You" : s.email}
                </th>
              ))}
              {both && <th className="pr-3">Consensus</th>}
            </tr>
          </thead>
          <tbody>
            {EXTRACTION_ARMS.flatMap((arm) =>
              EXTRACTION_FIELDS.map((field) => {
                const key = `${arm}.${field}`;
                const differs = differing.has(key);
                const agreed = consensus.get(key);
                return (
                  <tr key={key} className={differs ? "bg-amber-50" : ""} data-differs={differs ? "true" : undefined}>
                    <td className="pr-3 text-slate-600">
                      {ARM[arm]} {FIELD[field]}
                    </td>
                    {dual.submissions.map((s) => (
                      <td
                        key={s.userId}
                        className={`pr-3 tabular-nums ${differs ? "font-semibold text-amber-800" : ""}`}
                      >
                        {show(s.values?.[arm][field])}
                      </td>
                    ))}
                    {both && (
                      <td className="pr-3">
                        {differs && canResolve ? (
                          <span className="flex items-center gap-1">
                            <Input
                              aria-label={`Consensus ${ARM[arm]} ${FIELD[field]}`}
                              className="h-7 w-20 px-1 text-sm"
                              inputMode="decimal"
                              placeholder={agreed ? show(agreed.value) : "value or NR"}
                              value={drafts[key] ?? ""}
                              onChange={(e) => setDrafts({ ...drafts, [key]: e.target.value })}
                            />
                            {agreed && (
                              <span className="text-xs text-slate-500" data-testid="consensus-by">
                                {show(agreed.value)} · {agreed.email} · {new Date(agreed.at).toLocaleString()}
                              </span>
                            )}
                          </span>
                        ) : differs ? (
                          <span className="text-xs text-slate-600">
                            {agreed ? `${show(agreed.value)} · ${agreed.email}` : "awaiting consensus"}
                          </span>
                        ) : (
                          <span className="text-xs text-slate-500">
                            <Check className="inline size-3" aria-hidden /> agreed
                          </span>
                        )}
                      </td>
                    )}
                  </tr>
                );
              }),
            )}
          </tbody>
        </table>
      )}
      {both && canResolve && differing.size > 0 && (
        <Button size="sm" className="mt-2" disabled={busy} onClick={saveConsensus} data-testid="save-consensus">
          Record consensus
        </Button>
      )}
      {error && (
        <p role="alert" className="mt-1 text-sm text-red-700">
          {error}
        </p>
      )}
    </li>
  );
}

/**
 * Dual data extraction (issue 30) under the extraction table: per included study, submitting the
 * reviewer's own values (blind until submitted), both extractions side by side with the differing
 * cells highlighted, and the consensus values the owner or a named resolver records (who, when).
 * The analysis pools consensus values only.
 */
export function DualExtractionPanel({
  reviewId,
  outcomeId,
  studies,
  userId,
  canWrite,
  canResolve,
  onStudy,
}: {
  reviewId: string;
  outcomeId: number;
  studies: ReviewExtractionStudy[];
  userId: string;
  canWrite: boolean;
  canResolve: boolean;
  onStudy: (recordId: number, dual: DualExtractionStudy) => void;
}) {
  const base = `/api/reviews/${encodeURIComponent(reviewId)}/outcomes/${outcomeId}`;
  return (
    <section className="mt-4" aria-labelledby="dual-extraction" data-testid="dual-extraction">
      <h3 id="dual-extraction" className="text-sm font-semibold text-slate-900">
        Dual extraction
      </h3>
      <p className="text-xs text-slate-600">
        Check and correct your values in the table, then submit them. Each study is extracted by two reviewers
        independently; differing values are settled by a consensus, and the analysis uses consensus values only.
      </p>
      <ul className="mt-2 space-y-2">
        {studies.map((s) =>
          s.dual ? (
            <StudyBlock
              key={s.recordId}
              base={base}
              study={s}
              dual={s.dual}
              userId={userId}
              canWrite={canWrite}
              canResolve={canResolve}
              onChange={(d) => onStudy(s.recordId, d)}
            />
          ) : null,
        )}
      </ul>
    </section>
  );
}
