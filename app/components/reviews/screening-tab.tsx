import { Bot, Check, HelpCircle, Loader2, Undo2, X } from "lucide-react";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import {
  criteriaTerms,
  highlightParts,
  type ApiReviewRecord,
  type ScreeningDecision,
  type ScreeningNext,
} from "~/lib/reviews";
import { ReviewApiError, reviewsApi, type ReviewWithSources } from "~/browser/reviews-client";
import { toast } from "~/browser/toast";

type ShownRecord = NonNullable<ScreeningNext["record"]>;

function Highlighted({ text, terms }: { text: string; terms: readonly string[] }) {
  return (
    <>
      {highlightParts(text, terms).map((p, i) =>
        p.hit ? (
          <mark key={i} className="rounded bg-amber-100 px-0.5 text-slate-900">
            {p.text}
          </mark>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </>
  );
}

/** A share in [0, 1] as a percentage rounded down to 0.1 % (a lower bound stays a lower bound). */
const percentDown = (x: number) => `${Math.floor(x * 1000) / 10}%`;

/**
 * The stopping criterion in words: whether recall ≥ target is shown at the confidence, and the
 * recall bound the decisions support so far (nothing before the test has evidence).
 */
function StoppingCriterionView({ stopping }: { stopping: ScreeningNext["stopping"] }) {
  const target = percentDown(stopping?.recallTarget ?? 0.95);
  const confidence = percentDown(stopping?.confidence ?? 0.95);
  let detail: string;
  if (!stopping || stopping.relevantFound === 0)
    detail = "No estimate yet: the test needs at least one included record.";
  else if (stopping.recallLowerBound === null) detail = "No estimate yet: too few decisions to bound the recall.";
  else {
    const left = stopping.relevantLeftUpperBound ?? 0;
    detail =
      `So far, with ${confidence} confidence: recall ≥ ${percentDown(stopping.recallLowerBound)} ` +
      `(${stopping.relevantFound} found, at most ${left} relevant record${left === 1 ? "" : "s"} left).`;
  }
  return (
    <div className="mt-2 text-slate-700">
      <p className="flex justify-between gap-2">
        <span>
          Recall ≥ {target} with {confidence} confidence:
        </span>
        <strong data-testid="stopping-criterion">
          {stopping?.reached ? `reached after ${stopping.reachedAfter ?? stopping.screened} records` : "not yet"}
        </strong>
      </p>
      <p className="mt-1 text-xs text-slate-600" data-testid="stopping-bound">
        {detail}
      </p>
    </div>
  );
}

/** A layout effect in the browser (runs when a render is committed, before paint); nothing on the server. */
const useCommitEffect = typeof window === "undefined" ? () => {} : useLayoutEffect;

const isTyping = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));

/**
 * The Screening tab: one record at a time (title, journal, year, abstract with the criteria's
 * terms highlighted), Include / Exclude / Maybe (keys i, e, m; u undoes), an exclusion reason from
 * the review's editable list, progress, the stopping aid, the ranking's matched terms and — with a
 * language model configured — the second screener's suggestion and the disagreements.
 */
export function ScreeningTab({
  review,
  aiConfigured,
  onChanged,
}: {
  review: ReviewWithSources;
  aiConfigured: boolean;
  onChanged: () => void;
}) {
  const [state, setState] = useState<ScreeningNext | null>(null);
  const [busy, setBusy] = useState(false);
  const [reason, setReason] = useState("");
  const [reasons, setReasons] = useState<string[]>(review.exclusionReasons);
  const [suggesting, setSuggesting] = useState(false);
  const [disagreements, setDisagreements] = useState<ApiReviewRecord[]>([]);
  const history = useRef<ShownRecord[]>([]);
  const busyRef = useRef(false);

  const criteria = useMemo(() => {
    const q = review.question;
    return criteriaTerms([
      q.text,
      q.population,
      q.intervention,
      q.comparator,
      q.outcomes,
      ...review.criteria.inclusion,
    ]);
  }, [review.question, review.criteria.inclusion]);

  const loadDisagreements = useCallback(async () => {
    if (!aiConfigured) return;
    const { records } = await reviewsApi.records(review.id, { stage: "title_abstract", suggestion: "disagrees" });
    setDisagreements(
      records.filter(
        (r) => r.suggestion && r.titleAbstract.decision && r.suggestion.decision !== r.titleAbstract.decision,
      ),
    );
  }, [aiConfigured, review.id]);

  useEffect(() => {
    reviewsApi
      .next(review.id)
      .then(setState)
      .catch((e: unknown) =>
        toast({
          title: "Screening not loaded",
          description: e instanceof Error ? e.message : "Please reload.",
          variant: "destructive",
        }),
      );
    loadDisagreements().catch((e: unknown) => console.warn("disagreements not loaded", e));
  }, [review.id, loadDisagreements]);

  const record = state?.record ?? null;

  const act = useCallback(
    async (decision: ScreeningDecision) => {
      if (!record || busyRef.current) return;
      busyRef.current = true;
      setBusy(true);
      try {
        const res = await reviewsApi.decide(review.id, record.id, {
          stage: "title_abstract",
          decision,
          reason: decision === "include" ? null : reason || null,
        });
        history.current.push(record);
        setState(res.next ?? (await reviewsApi.next(review.id)));
        setReason("");
        onChanged();
        if (record.suggestion) loadDisagreements().catch((e: unknown) => console.warn("disagreements not loaded", e));
      } catch (e) {
        toast({
          title: "Decision not saved",
          description: e instanceof ReviewApiError ? e.message : "Please try again.",
          variant: "destructive",
        });
      } finally {
        busyRef.current = false;
        setBusy(false);
      }
    },
    [record, reason, review.id, onChanged, loadDisagreements],
  );

  const undo = useCallback(async () => {
    if (busyRef.current) return;
    busyRef.current = true;
    setBusy(true);
    try {
      const res = await reviewsApi.undo(review.id);
      const previous = history.current.at(-1);
      const fresh = res.next ?? (await reviewsApi.next(review.id));
      if (previous && previous.id === res.recordId) {
        history.current.pop();
        setState({ ...fresh, record: previous });
      } else {
        setState(fresh);
      }
      onChanged();
      toast({ title: "Decision undone" });
    } catch (e) {
      toast({
        title: "Nothing undone",
        description: e instanceof ReviewApiError ? e.message : "Please try again.",
        variant: "destructive",
      });
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  }, [review.id, onChanged]);

  // The key listener acts on the record on screen. `act` and `undo` are swapped in when a render is
  // committed, before the browser paints it: a passive effect would swap them only after the paint, so
  // a key pressed as soon as the next record showed went to the previous one's `act`.
  const keyActions = useRef({ act, undo });
  useCommitEffect(() => {
    keyActions.current = { act, undo };
  }, [act, undo]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      const key = event.key.toLowerCase();
      const { act: decide, undo: undoLast } = keyActions.current;
      if (key === "i") void decide("include");
      else if (key === "e") void decide("exclude");
      else if (key === "m") void decide("maybe");
      else if (key === "u") void undoLast();
      else return;
      event.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  async function suggest() {
    if (!record) return;
    setSuggesting(true);
    try {
      const { suggestion } = await reviewsApi.suggest(review.id, record.id);
      setState((s) => (s?.record && s.record.id === record.id ? { ...s, record: { ...s.record, suggestion } } : s));
    } catch (e) {
      toast({
        title: "No suggestion",
        description: e instanceof ReviewApiError ? e.message : "Please try again.",
        variant: "destructive",
      });
    } finally {
      setSuggesting(false);
    }
  }

  async function saveReasons(text: string) {
    const list = text
      .split("\n")
      .map((s) => s.trim())
      .filter(Boolean);
    try {
      const { review: updated } = await reviewsApi.update(review.id, { exclusionReasons: list });
      setReasons(updated.exclusionReasons);
      toast({ title: "Exclusion reasons saved" });
    } catch (e) {
      toast({
        title: "Reasons not saved",
        description: e instanceof ReviewApiError ? e.message : "Please try again.",
        variant: "destructive",
      });
    }
  }

  if (!state) return <Loader2 className="size-5 animate-spin text-slate-500" aria-label="Loading" />;
  const p = state.progress;
  const pct = p.total > 0 ? Math.round((p.screened / p.total) * 100) : 0;
  const terms = [...new Set([...criteria, ...(record?.terms ?? []).flatMap((t) => t.split(" "))])];

  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_18rem]">
      <section aria-label="Record to screen" className="space-y-4">
        <div>
          <div className="flex justify-between text-sm text-slate-700" data-testid="screening-progress">
            <span>
              {p.screened} of {p.total} screened
              {p.voted !== undefined && <span data-testid="my-votes"> · your votes: {p.voted}</span>}
            </span>
            <span>{p.included} included</span>
          </div>
          <div
            className="mt-1 h-2 rounded-full bg-slate-100"
            role="progressbar"
            aria-label="Screening progress"
            aria-valuenow={pct}
            aria-valuemin={0}
            aria-valuemax={100}
          >
            <div className="h-2 rounded-full bg-brand-600" style={{ width: `${pct}%` }} />
          </div>
        </div>

        {!record ? (
          <div
            className="rounded-lg border border-slate-200 p-6 text-center text-slate-700"
            data-testid="screening-done"
          >
            {p.total === 0
              ? "Import records to start screening."
              : p.voted !== undefined && p.screened < p.total
                ? "No record is waiting for your vote: the rest await another reviewer or are in the conflicts queue (Team tab)."
                : "Every record has a title/abstract decision. Continue on the Full text tab."}
          </div>
        ) : (
          <article
            className="rounded-lg border border-slate-200 p-5"
            data-testid="screening-record"
            data-record-id={record.id}
          >
            <h2 className="text-lg font-semibold text-slate-900">
              <Highlighted text={record.title} terms={terms} />
            </h2>
            <p className="mt-1 text-sm text-slate-600">
              {[
                record.journal,
                record.year,
                record.authors.slice(0, 3).join(", ") + (record.authors.length > 3 ? " et al." : ""),
              ]
                .filter(Boolean)
                .join(" · ")}
              {record.doi && (
                <>
                  {" · "}
                  <a
                    href={`https://doi.org/${record.doi}`}
                    target="_blank"
                    rel="noreferrer noopener"
                    className="text-brand-700 underline"
                  >
                    doi:{record.doi}
                  </a>
                </>
              )}
            </p>
            <p className="mt-4 leading-relaxed whitespace-pre-line text-slate-800">
              {record.abstract ? (
                <Highlighted text={record.abstract} terms={terms} />
              ) : (
                <em className="text-slate-500">No abstract.</em>
              )}
            </p>
            {record.terms.length > 0 && (
              <p className="mt-4 text-xs text-slate-600" data-testid="ranking-terms">
                Ranked here for:{" "}
                {record.terms.map((t) => (
                  <Badge key={t} variant="outline" className="mr-1">
                    {t}
                  </Badge>
                ))}
              </p>
            )}
            {record.suggestion && (
              <div
                className="mt-4 rounded-md border border-violet-200 bg-violet-50 p-3 text-sm"
                data-testid="suggestion"
              >
                <div className="font-medium text-violet-900">
                  Second screener suggests: {record.suggestion.decision}{" "}
                  <span className="text-xs font-normal">({record.suggestion.model})</span>
                </div>
                <ul className="mt-1 list-disc pl-5 text-violet-900">
                  {record.suggestion.reasons.map((r, i) => (
                    <li key={i}>
                      &ldquo;{r.quote}&rdquo;{" "}
                      <span className="text-xs">— {r.from === "criteria" ? "criteria" : "abstract"}</span>
                    </li>
                  ))}
                </ul>
              </div>
            )}

            <div className="mt-5 flex flex-wrap items-end gap-2">
              <Button
                onClick={() => act("include")}
                disabled={busy}
                className="bg-emerald-700 hover:bg-emerald-800"
                aria-keyshortcuts="i"
              >
                <Check aria-hidden /> Include <kbd className="ml-1 rounded bg-white/20 px-1 text-xs">i</kbd>
              </Button>
              <Button onClick={() => act("exclude")} disabled={busy} variant="destructive" aria-keyshortcuts="e">
                <X aria-hidden /> Exclude <kbd className="ml-1 rounded bg-white/20 px-1 text-xs">e</kbd>
              </Button>
              <Button onClick={() => act("maybe")} disabled={busy} variant="outline" aria-keyshortcuts="m">
                <HelpCircle aria-hidden /> Maybe <kbd className="ml-1 rounded bg-slate-100 px-1 text-xs">m</kbd>
              </Button>
              <Button onClick={undo} disabled={busy} variant="ghost" aria-keyshortcuts="u">
                <Undo2 aria-hidden /> Undo <kbd className="ml-1 rounded bg-slate-100 px-1 text-xs">u</kbd>
              </Button>
              <label className="ml-auto text-sm text-slate-700">
                Exclusion reason{" "}
                <select
                  value={reason}
                  onChange={(e) => setReason(e.target.value)}
                  className="h-9 rounded-md border border-slate-300 bg-white px-2 text-sm"
                  data-testid="exclusion-reason"
                >
                  <option value="">(none)</option>
                  {reasons.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              </label>
            </div>
            {aiConfigured && !record.suggestion && (
              <Button variant="outline" size="sm" className="mt-3" onClick={suggest} disabled={suggesting}>
                {suggesting ? <Loader2 className="animate-spin" aria-hidden /> : <Bot aria-hidden />} Ask the second
                screener
              </Button>
            )}
          </article>
        )}
      </section>

      <aside className="space-y-4 text-sm">
        <div className="rounded-lg border border-slate-200 p-4" data-testid="stopping-aid">
          <h3 className="font-semibold text-slate-900">Stopping aid</h3>
          <StoppingCriterionView stopping={state.stopping} />
          <dl className="mt-2 space-y-1 text-slate-700">
            <div className="flex justify-between">
              <dt>Exclusions in a row</dt>
              <dd data-testid="consecutive-exclusions">{state.consecutiveExclusions}</dd>
            </div>
          </dl>
          <p className="mt-2 text-xs text-slate-500">
            {state.mode === "active"
              ? "Ranked by a model retrained on your decisions after every one."
              : "Ranked by similarity to the question and criteria until you include one record and exclude another."}{" "}
            Screening never stops by itself: you decide when to stop.
          </p>
          <p className="mt-2 text-xs text-slate-500" data-testid="stopping-assumptions">
            The test (Callaghan &amp; Müller-Hansen 2020) treats the records you screened last as a random sample of
            those left when you reached them. It holds when you screen in the ranked order (a ranking no better than
            chance would only make it stop later), counts &lsquo;Maybe&rsquo; records as unscreened, and cannot know
            about studies the search missed. It is updated with the ranking, a moment after each decision.
          </p>
        </div>
        <details className="rounded-lg border border-slate-200 p-4">
          <summary className="cursor-pointer font-semibold text-slate-900">Exclusion reasons</summary>
          <form
            className="mt-2 space-y-2"
            onSubmit={(e) => {
              e.preventDefault();
              void saveReasons(String(new FormData(e.currentTarget).get("reasons") ?? ""));
            }}
          >
            <textarea
              name="reasons"
              defaultValue={reasons.join("\n")}
              rows={8}
              className="w-full rounded-md border border-slate-300 p-2 text-sm"
              aria-label="Exclusion reasons, one per line"
            />
            <Button size="sm" type="submit">
              Save reasons
            </Button>
          </form>
        </details>
        {aiConfigured && (
          <div className="rounded-lg border border-slate-200 p-4" data-testid="disagreements">
            <h3 className="font-semibold text-slate-900">
              Disagreements with the second screener ({disagreements.length})
            </h3>
            <ul className="mt-2 space-y-1">
              {disagreements.map((d) => (
                <li key={d.id} className="text-xs text-slate-700">
                  {d.title} — you: {d.titleAbstract.decision}, model: {d.suggestion?.decision}
                </li>
              ))}
            </ul>
          </div>
        )}
      </aside>
    </div>
  );
}
