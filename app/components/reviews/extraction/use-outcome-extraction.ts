import { useCallback, useEffect, useMemo, useState } from "react";
import type { ArmField, ArmKey } from "~/lib/arms";
import { fieldsFor } from "~/lib/arms/review";
import { consensusStudies } from "~/lib/dual-extraction";
import { DEFAULT_OPTIONS } from "~/lib/meta-analysis/page-logic";
import {
  applyStoredEdits,
  DEFAULT_POOL_MEASURES,
  dominantOutcomeType,
  inferGenericMeasure,
  inferPoolType,
  type PoolMeasure,
  type ReviewPoolType,
  parsePoolChoice,
  poolChoiceKey,
  poolReviewOutcome,
  type ReviewExtractionStudy,
  type ReviewOutcome,
  type ReviewOutcomeExtraction,
  type StoredEdit,
} from "~/lib/review-extraction";
import type { ReviewWithSources } from "~/browser/reviews-client";

/** localStorage, or null where it is unavailable (private mode, blocked storage). */
function safeStorage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null;
  }
}

/** fetch → JSON, throwing the server's message on an error status. */
async function call<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const { json, ...rest } = init;
  const res = await fetch(path, {
    ...rest,
    headers: json === undefined ? rest.headers : { "Content-Type": "application/json" },
    body: json === undefined ? rest.body : JSON.stringify(json),
  });
  if (res.status === 204) return undefined as T;
  const body = (await res.json().catch(() => ({}))) as T & { message?: string };
  if (!res.ok) throw new Error(body.message ?? `Request failed (${res.status})`);
  return body;
}

/**
 * The state and actions of a review's Data extraction tab: the review's outcomes (GET
 * /api/reviews/{id}/outcomes; the first one selected), adding and removing one, the selected
 * outcome's extraction (GET …/outcomes/{outcomeId}) with the type and measure it was last pooled in
 * (kept in this browser per review and outcome; else inferred from its studies), corrections
 * (POST /api/extraction/edits, refused with a message when not a number, a negative or fractional
 * count, or a negative SD), the selected cell, and the pooled result once "Analyse" was pressed
 * (dual extraction: only studies with consensus values, with those values). Errors of every call
 * land in `error`.
 */
export function useOutcomeExtraction(review: ReviewWithSources) {
  const base = `/api/reviews/${encodeURIComponent(review.id)}/outcomes`;
  const [outcomes, setOutcomes] = useState<ReviewOutcome[] | null>(null);
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [form, setForm] = useState({
    name: "",
    intervention: review.question.intervention ?? "",
    comparator: review.question.comparator ?? "",
  });
  const [data, setData] = useState<(ReviewOutcomeExtraction & { included: number }) | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [cell, setCell] = useState<{ recordId: number; arm: ArmKey; field: ArmField } | null>(null);
  const [type, setType] = useState<ReviewPoolType>("binary");
  const [measures, setMeasures] = useState<Record<ReviewPoolType, PoolMeasure>>({ ...DEFAULT_POOL_MEASURES });
  const [analysed, setAnalysed] = useState(false);

  useEffect(() => {
    let live = true;
    call<{ outcomes: ReviewOutcome[] }>(base)
      .then(({ outcomes: list }) => {
        if (!live) return;
        setOutcomes(list);
        setSelectedId((id) => id ?? list[0]?.id ?? null);
      })
      .catch((e: unknown) => live && setError(e instanceof Error ? e.message : "The outcomes could not be loaded."));
    return () => {
      live = false;
    };
  }, [base]);

  const load = useCallback(
    async (id: number) => {
      setLoading(true);
      setError(null);
      setCell(null);
      setAnalysed(false);
      try {
        const body = await call<ReviewOutcomeExtraction & { included: number }>(`${base}/${id}`);
        setData(body);
        // The type and measure this outcome was last pooled in (they open /meta-analysis the same way).
        const stored = parsePoolChoice(safeStorage()?.getItem(poolChoiceKey(review.id, id)) ?? null);
        const inferred = inferPoolType(body.studies);
        setType(stored?.type ?? inferred);
        if (stored) setMeasures((m) => ({ ...m, [stored.type]: stored.measure }));
        else if (inferred === "generic") setMeasures((m) => ({ ...m, generic: inferGenericMeasure(body.studies) }));
      } catch (e) {
        setData(null);
        setError(e instanceof Error ? e.message : "The extraction failed.");
      } finally {
        setLoading(false);
      }
    },
    [base, review.id],
  );

  useEffect(() => {
    if (selectedId !== null) void load(selectedId);
  }, [selectedId, load]);

  async function onAdd() {
    setError(null);
    try {
      const { outcome } = await call<{ outcome: ReviewOutcome }>(base, {
        method: "POST",
        json: {
          name: form.name.trim(),
          intervention: form.intervention.trim() || undefined,
          comparator: form.comparator.trim() || undefined,
        },
      });
      setOutcomes((list) => [...(list ?? []), outcome]);
      setForm((f) => ({ ...f, name: "" }));
      setSelectedId(outcome.id);
    } catch (e) {
      setError(e instanceof Error ? e.message : "The outcome could not be added.");
    }
  }

  async function onDelete(outcome: ReviewOutcome) {
    setError(null);
    try {
      await call<void>(`${base}/${outcome.id}`, { method: "DELETE" });
      const rest = (outcomes ?? []).filter((o) => o.id !== outcome.id);
      setOutcomes(rest);
      if (selectedId === outcome.id) {
        setData(null);
        setSelectedId(rest[0]?.id ?? null);
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : "The outcome could not be removed.");
    }
  }

  /** Stores one correction, then shows it (the stored edit carries who and when). */
  async function onEdit(
    study: ReviewExtractionStudy,
    arm: ArmKey,
    field: ArmField,
    value: number | null,
  ): Promise<boolean> {
    if (!data) return false;
    const old = study.result[arm][field];
    if (old === value) return true;
    if (value !== null) {
      const problem = !Number.isFinite(value)
        ? "Enter a number."
        : (field === "events" || field === "groupSize") && (!Number.isInteger(value) || value < 0)
          ? "Counts are whole numbers ≥ 0."
          : field === "sd" && value < 0
            ? "An SD cannot be negative."
            : null;
      if (problem) {
        setError(problem);
        return false;
      }
    }
    try {
      const { edits } = await call<{ edits: StoredEdit[] }>("/api/extraction/edits", {
        method: "POST",
        json: {
          edits: [{ studyKey: study.studyKey, outcome: data.outcome.name, arm, field, oldValue: old, newValue: value }],
        },
      });
      setError(null);
      setData((current) =>
        current
          ? {
              ...current,
              studies: current.studies.map((s) => {
                if (s.recordId !== study.recordId) return s;
                const next = applyStoredEdits(s.result, edits);
                return { ...s, result: next.result, audit: [...s.audit, ...next.audit] };
              }),
            }
          : current,
      );
      return true;
    } catch (e) {
      setError(e instanceof Error ? e.message : "The correction could not be saved.");
      return false;
    }
  }

  const measure = measures[type];
  const shownOutcomeId = data?.outcome.id ?? null;
  useEffect(() => {
    if (shownOutcomeId !== null)
      safeStorage()?.setItem(poolChoiceKey(review.id, shownOutcomeId), JSON.stringify({ type, measure }));
  }, [review.id, shownOutcomeId, type, measure]);
  const pooling = useMemo(
    () =>
      analysed && data
        ? // Dual extraction: only studies with consensus values are pooled, with those values.
          poolReviewOutcome(data.mode === "dual" ? consensusStudies(data.studies) : data.studies, {
            type,
            measure,
            method: DEFAULT_OPTIONS.method,
            test: DEFAULT_OPTIONS.test,
          })
        : null,
    [analysed, data, type, measure],
  );
  // Generic inverse variance pools reported estimates; the arm columns still show what the arms report.
  const fields = fieldsFor(type === "generic" ? (data ? dominantOutcomeType(data.studies) : "binary") : type);
  const selectedOutcome = outcomes?.find((o) => o.id === selectedId) ?? null;
  const audit = data?.studies.flatMap((s) => s.audit.map((a) => ({ ...a, title: s.title }))) ?? [];
  const selectedStudy = cell && data ? data.studies.find((s) => s.recordId === cell.recordId) : undefined;
  const ratio = pooling?.pooled?.ratio ?? null;
  return {
    outcomes,
    selectedId,
    setSelectedId,
    form,
    setForm,
    data,
    setData,
    loading,
    error,
    cell,
    setCell,
    type,
    setType,
    measures,
    setMeasures,
    measure,
    setAnalysed,
    load,
    onAdd,
    onDelete,
    onEdit,
    pooling,
    fields,
    selectedOutcome,
    audit,
    selectedStudy,
    ratio,
  };
}
