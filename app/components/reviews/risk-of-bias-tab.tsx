import { Download, FlaskConical, Loader2, Search } from "lucide-react";
import { type ReactNode, useCallback, useEffect, useMemo, useState } from "react";
import { Link } from "@remix-run/react";
import { InlineSvg } from "~/components/meta-analysis/risk-of-bias-panels";
import { Button } from "~/components/ui/button";
import { GradeSettingsPanel } from "./grade-settings-panel";
import { RobApiError, robApi, type RobAssessmentInput } from "~/browser/risk-of-bias-client";
import { ROBVIS_COLOUR, ROBVIS_GLYPH, summarySvg, trafficLightSvg } from "~/lib/risk-of-bias/plots";
import {
  askedQuestions,
  proposeDomains,
  ROB2_DOMAIN_TITLES,
  ROB2_DOMAINS,
  ROB_JUDGEMENTS,
  rob2Questions,
  worstJudgement,
  type Rob2Answer,
  type Rob2DomainId,
  type Rob2Question,
  type Rob2Variant,
  type RobJudgement,
} from "~/lib/risk-of-bias/rob2";
import { ROBVIS_LABEL } from "~/lib/risk-of-bias/robvis";
import type { Rob2Suggestion } from "~/lib/risk-of-bias/suggestions";
import type { ApiRobDualStudy, RobAssessmentContent } from "~/lib/risk-of-bias/dual";
import type { ApiRobAssessment, ApiRobOverview, ApiRobStudy, ApiRobSuggestions } from "~/lib/risk-of-bias/types";
import type { ReviewWithSources } from "~/browser/reviews-client";

const ANSWER_WORDS: Record<Rob2Answer, string> = {
  Y: "Yes",
  PY: "Probably yes",
  PN: "Probably no",
  N: "No",
  NI: "No information",
  NA: "Not applicable",
};
const VARIANT_WORDS: Record<Rob2Variant, string> = {
  assignment: "Effect of assignment to the intervention (intention to treat)",
  adhering: "Effect of adhering to the intervention (per protocol)",
};
type OverrideKey = Rob2DomainId | "overall";
type Overrides = ApiRobAssessment["overrides"];
type Support = ApiRobAssessment["support"];
/** What the form starts from: a stored assessment, a reviewer's own submission or a consensus draft. */
type FormStart = Pick<ApiRobAssessment, "variant" | "answers" | "support" | "overrides"> &
  Partial<Pick<ApiRobAssessment, "assessedBy" | "updatedAt">>;
type DualView = { recordId: number; kind: "submit" | "compare" | "consensus" };

function errorText(error: unknown): string {
  if (error instanceof RobApiError && Array.isArray(error.body.missing)) return `${error.message}.`;
  return error instanceof Error ? error.message : "Something went wrong.";
}

/** A judgement as robvis draws it (coloured circle, glyph) with its words. */
function JudgementMark({ judgement, words = true }: { judgement: RobJudgement | null; words?: boolean }) {
  if (!judgement) return <span className="text-xs text-slate-500">{words ? "Incomplete" : "—"}</span>;
  return (
    <span className="inline-flex items-center gap-1.5" data-judgement={judgement}>
      <span
        aria-hidden
        className="inline-flex size-5 items-center justify-center rounded-full border border-slate-600 text-xs font-bold text-black"
        style={{ backgroundColor: ROBVIS_COLOUR[judgement] }}
      >
        {ROBVIS_GLYPH[judgement]}
      </span>
      <span className={words ? "text-sm" : "sr-only"}>{ROBVIS_LABEL[judgement]}</span>
    </span>
  );
}

/**
 * The review's Risk of bias tab (issue 28): per outcome, the studies included at full text with
 * their RoB 2 judgements, the assessment form of one study (effect of interest, the signalling
 * questions the answers call for, support per answer, suggestions from the study's text, the
 * algorithm's live proposal, overrides with justifications) and the robvis-style traffic-light and
 * summary plots with their downloads, and the outcome's GRADE settings. Viewers read; owners and
 * editors assess. Dual mode (issue 30): each reviewer submits their own assessment (blind until
 * both are in), the two are compared side by side with the differences highlighted, and the owner
 * or a resolver records the consensus assessment, which the table, plots and analysis use.
 */
export function RiskOfBiasTab({ review }: { review: ReviewWithSources }) {
  const canWrite = review.role !== "viewer";
  const [overview, setOverview] = useState<ApiRobOverview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [outcomeId, setOutcomeId] = useState<number | null>(null);
  const [editing, setEditing] = useState<number | null>(null);
  const [dualView, setDualView] = useState<DualView | null>(null);
  useEffect(() => {
    let live = true;
    robApi
      .overview(review.id)
      .then((o) => {
        if (!live) return;
        setOverview(o);
        setOutcomeId((id) => id ?? o.outcomes[0]?.id ?? null);
      })
      .catch((e: unknown) => live && setError(errorText(e)));
    return () => {
      live = false;
    };
  }, [review.id]);
  const reload = useCallback(() => robApi.overview(review.id).then(setOverview), [review.id]);
  const onSaved = useCallback((saved: ApiRobAssessment) => {
    setOverview((o) =>
      o
        ? {
            ...o,
            assessments: [
              ...o.assessments.filter(
                (a) => a.id !== saved.id && !(a.recordId === saved.recordId && a.outcomeId === saved.outcomeId),
              ),
              saved,
            ],
          }
        : o,
    );
    setEditing(null);
  }, []);

  if (error)
    return (
      <p role="alert" className="text-sm text-red-700">
        {error}
      </p>
    );
  if (!overview) {
    return (
      <p className="flex items-center gap-2 text-sm text-slate-600">
        <Loader2 className="size-4 animate-spin" aria-hidden /> Loading the risk-of-bias assessments…
      </p>
    );
  }
  if (overview.outcomes.length === 0) {
    return (
      <p className="text-sm text-slate-700">
        RoB 2 is assessed per result: add the review&apos;s outcomes in Data extraction first.
      </p>
    );
  }
  if (overview.studies.length === 0) {
    return (
      <p className="text-sm text-slate-700">
        No study is included at full text yet: risk of bias is assessed for the included studies.
      </p>
    );
  }
  const outcome = overview.outcomes.find((o) => o.id === outcomeId) ?? overview.outcomes[0]!;
  const byRecord = new Map(overview.assessments.filter((a) => a.outcomeId === outcome.id).map((a) => [a.recordId, a]));
  const rows = overview.studies.flatMap((s) => {
    const a = byRecord.get(s.recordId);
    return a ? [{ study: s.label, judgements: a.final, weight: 1 }] : [];
  });
  const editingStudy = overview.studies.find((s) => s.recordId === editing) ?? null;
  const dualMode = overview.mode === "dual";
  const dualBy = new Map((overview.dual ?? []).filter((d) => d.outcomeId === outcome.id).map((d) => [d.recordId, d]));
  const dualStudy =
    dualMode && dualView ? (overview.studies.find((s) => s.recordId === dualView.recordId) ?? null) : null;
  const dualState = dualStudy ? dualBy.get(dualStudy.recordId) : undefined;

  return (
    <div className="space-y-6">
      <section aria-labelledby="rob-heading" className="space-y-3">
        <h2 id="rob-heading" className="text-lg font-semibold text-slate-900">
          Risk of bias (RoB 2)
        </h2>
        <p className="text-sm text-slate-700">
          The Cochrane RoB 2 tool (Sterne et al., BMJ 2019;366:l4898) for each included study and outcome. The
          signalling questions are our paraphrases; read the tool&apos;s guidance at riskofbias.info. The algorithm
          proposes each judgement; you confirm every answer.
        </p>
        <div className="flex flex-wrap items-end gap-3">
          <div className="flex flex-col gap-1">
            <label htmlFor="rob-outcome" className="text-sm font-medium text-slate-700">
              Outcome
            </label>
            <select
              id="rob-outcome"
              className="h-10 rounded-md border border-slate-300 bg-white px-3 text-sm"
              value={outcome.id}
              onChange={(e) => {
                setOutcomeId(Number(e.target.value));
                setEditing(null);
                setDualView(null);
              }}
            >
              {overview.outcomes.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.name}
                </option>
              ))}
            </select>
          </div>
          <p className="text-sm text-slate-600" data-testid="rob-progress">
            {rows.length} of {overview.studies.length} {overview.studies.length === 1 ? "study" : "studies"}{" "}
            {dualMode ? "with a consensus assessment" : "assessed"}
          </p>
          {dualMode && (
            <p className="text-sm text-slate-700" data-testid="rob-dual-note">
              Dual assessment: two reviewers assess each study independently and blind; the consensus assessment is what
              the plots and the analysis use.
            </p>
          )}
        </div>
        <div className="overflow-x-auto">
          <table className="w-full border-collapse text-left text-sm" data-testid="rob-studies">
            <caption className="sr-only">
              Studies included at full text and their RoB 2 judgements for {outcome.name}
            </caption>
            <thead>
              <tr className="border-b border-slate-300">
                <th scope="col" className="py-1.5 pr-3 font-semibold">
                  Study
                </th>
                {ROB2_DOMAINS.map((d) => (
                  <th key={d} scope="col" className="px-1 py-1.5 text-center font-semibold">
                    <abbr title={ROB2_DOMAIN_TITLES[d]}>{d}</abbr>
                  </th>
                ))}
                <th scope="col" className="px-1 py-1.5 text-center font-semibold">
                  Overall
                </th>
                <th scope="col" className="py-1.5 pl-2 font-semibold">
                  <span className="sr-only">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {overview.studies.map((s) => {
                const a = byRecord.get(s.recordId);
                return (
                  <tr key={s.recordId} className="border-b border-slate-100" data-testid="rob-study-row">
                    <th scope="row" className="py-1.5 pr-3 font-medium" title={s.title}>
                      {s.label}
                    </th>
                    {[...ROB2_DOMAINS, "overall" as const].map((d) => (
                      <td key={d} className="px-1 py-1.5 text-center">
                        {a ? (
                          <JudgementMark judgement={a.final[d]} words={false} />
                        ) : (
                          <span className="text-slate-500">·</span>
                        )}
                      </td>
                    ))}
                    <td className="py-1.5 pl-2">
                      {dualMode ? (
                        <DualActions
                          d={dualBy.get(s.recordId)}
                          label={s.label}
                          canWrite={canWrite}
                          onOpen={(kind) => {
                            setEditing(null);
                            setDualView({ recordId: s.recordId, kind });
                          }}
                        />
                      ) : (
                        <Button
                          type="button"
                          size="sm"
                          variant="outline"
                          onClick={() => setEditing(s.recordId)}
                          aria-label={`${a ? (canWrite ? "Edit" : "View") : "Assess"} ${s.label}`}
                        >
                          {a ? (canWrite ? "Edit" : "View") : canWrite ? "Assess" : "View"}
                        </Button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </section>

      {dualStudy && dualView?.kind === "submit" && (
        <AssessmentForm
          key={`submit-${dualStudy.recordId}-${outcome.id}`}
          reviewId={review.id}
          study={dualStudy}
          outcome={outcome}
          existing={dualState?.mine ? (dualState.submissions.find((x) => x.assessment)?.assessment ?? null) : null}
          canWrite={canWrite}
          saveLabel="Submit my assessment"
          note="Your own assessment: nobody sees it until the second reviewer has submitted theirs. You can change it until then."
          onSubmit={async (input) => {
            await robApi.submit(review.id, dualStudy.recordId, outcome.id, input);
            await reload();
            setDualView(null);
          }}
          onSaved={() => undefined}
          onClose={() => setDualView(null)}
        />
      )}
      {dualStudy && dualState?.revealed && dualView?.kind === "compare" && (
        <DualComparison
          key={`compare-${dualStudy.recordId}-${outcome.id}`}
          d={dualState}
          study={dualStudy}
          outcome={outcome}
          canResolve={review.resolver}
          onRecord={() => setDualView({ recordId: dualStudy.recordId, kind: "consensus" })}
          onClose={() => setDualView(null)}
        />
      )}
      {dualStudy && dualState?.revealed && dualView?.kind === "consensus" && (
        <AssessmentForm
          key={`consensus-${dualStudy.recordId}-${outcome.id}`}
          reviewId={review.id}
          study={dualStudy}
          outcome={outcome}
          existing={consensusDraft(dualState)}
          canWrite={review.resolver}
          saveLabel="Record consensus"
          note="The consensus assessment: answers both reviewers gave alike are filled in; settle the differing ones. It is kept with your name and the time, and earlier consensus assessments stay in the history."
          onSubmit={async (input) => {
            await robApi.consensus(review.id, dualStudy.recordId, outcome.id, input);
            await reload();
            setDualView({ recordId: dualStudy.recordId, kind: "compare" });
          }}
          onSaved={() => undefined}
          onClose={() => setDualView({ recordId: dualStudy.recordId, kind: "compare" })}
        />
      )}

      {editingStudy && (
        <AssessmentForm
          key={`${editingStudy.recordId}-${outcome.id}`}
          reviewId={review.id}
          study={editingStudy}
          outcome={outcome}
          existing={byRecord.get(editingStudy.recordId) ?? null}
          canWrite={canWrite}
          onSaved={onSaved}
          onClose={() => setEditing(null)}
        />
      )}

      <section aria-labelledby="rob-plots-heading" className="space-y-3">
        <h2 id="rob-plots-heading" className="text-lg font-semibold text-slate-900">
          Plots: {outcome.name}
        </h2>
        {rows.length === 0 ? (
          <p className="text-sm text-slate-600">
            The traffic-light and summary plots appear once a study is assessed for this outcome.
          </p>
        ) : (
          <>
            <figure className="space-y-1">
              <InlineSvg
                svg={trafficLightSvg(rows, `Risk of bias (RoB 2): ${outcome.name}`)}
                testId="rob-traffic-light"
              />
              <figcaption className="text-xs text-slate-600">
                Traffic-light plot (robvis layout): + low, - some concerns, X high risk of bias.
              </figcaption>
            </figure>
            <figure className="space-y-1">
              <InlineSvg
                svg={summarySvg(rows, { title: `Risk of bias (RoB 2): ${outcome.name}, summary` })}
                testId="rob-summary-plot"
              />
              <figcaption className="text-xs text-slate-600">
                Summary plot: share of studies per judgement (unweighted; the meta-analysis report weights it by the
                studies&apos; weights).
              </figcaption>
            </figure>
          </>
        )}
        <div className="flex flex-wrap gap-2">
          {(
            [
              ["csv", "robvis CSV"],
              ["traffic-light", "Traffic-light plot (SVG)"],
              ["summary", "Summary plot (SVG)"],
              ...(dualMode ? ([["audit", "Dual assessment audit trail (CSV)"]] as const) : []),
            ] as const
          ).map(([format, text]) => (
            <Button key={format} asChild variant="outline" size="sm">
              <a href={robApi.exportUrl(review.id, outcome.id, format)} download data-testid={`rob-export-${format}`}>
                <Download aria-hidden /> {text}
              </a>
            </Button>
          ))}
          {overview.studies.length >= 2 && (
            <Button asChild size="sm">
              <Link to={`/meta-analysis?review=${encodeURIComponent(review.id)}`} data-testid="rob-open-meta-analysis">
                <FlaskConical aria-hidden /> Meta-analysis with risk of bias
              </Link>
            </Button>
          )}
        </div>
        <p className="text-xs text-slate-600">
          The meta-analysis of this review adds a risk-of-bias column to the forest plot, the sensitivity analysis
          without studies at high risk of bias (and with low-risk studies only), GRADE&apos;s risk-of-bias rating from
          these judgements and the Summary of Findings table.
        </p>
      </section>

      <GradeSettingsPanel key={outcome.id} reviewId={review.id} outcome={outcome} canWrite={canWrite} />
    </div>
  );
}

/** The sentence with the matched cue marked. */
function Highlighted({ s }: { s: Rob2Suggestion }) {
  const at = s.sentence.toLowerCase().indexOf(s.cue.toLowerCase());
  if (at < 0 || !s.cue) return <>{s.sentence}</>;
  return (
    <>
      {s.sentence.slice(0, at)}
      <mark className="rounded bg-yellow-200 px-0.5">{s.sentence.slice(at, at + s.cue.length)}</mark>
      {s.sentence.slice(at + s.cue.length)}
    </>
  );
}

function QuestionField({
  q,
  answer,
  support,
  suggestions,
  disabled,
  onAnswer,
  onSupport,
}: {
  q: Rob2Question;
  answer: Rob2Answer | undefined;
  support: { text: string; quotes: string[] };
  suggestions: Rob2Suggestion[];
  disabled: boolean;
  onAnswer: (a: Rob2Answer) => void;
  onSupport: (s: { text: string; quotes: string[] }) => void;
}) {
  const name = `rob-q-${q.id}`;
  return (
    <fieldset
      className="space-y-2 rounded-md border border-slate-200 p-3"
      data-testid="rob-question"
      data-question={q.id}
    >
      <legend className="px-1 text-sm font-medium text-slate-900">
        {q.id} {q.text}
      </legend>
      <div className="flex flex-wrap gap-x-3 gap-y-1" role="radiogroup" aria-label={`Answer to ${q.id}`}>
        {q.options.map((o) => (
          <label key={o} className="inline-flex min-h-8 items-center gap-1 text-sm" title={ANSWER_WORDS[o]}>
            <input
              type="radio"
              name={name}
              value={o}
              checked={answer === o}
              disabled={disabled}
              onChange={() => onAnswer(o)}
            />
            <span>{o}</span>
            <span className="sr-only">({ANSWER_WORDS[o]})</span>
          </label>
        ))}
      </div>
      {suggestions.length > 0 && (
        <ul className="space-y-1.5" aria-label={`Sentences of the study on ${q.id}`} data-testid="rob-suggestions">
          {suggestions.map((s, i) => (
            <li key={`${s.start}-${i}`} className="rounded bg-slate-50 p-2 text-sm">
              <blockquote className="text-slate-800">
                <Highlighted s={s} />
              </blockquote>
              <div className="mt-1 flex flex-wrap items-center gap-2 text-xs text-slate-600">
                {s.note && <span>{s.note}.</span>}
                {s.proposed && (
                  <Button
                    type="button"
                    size="sm"
                    variant="outline"
                    disabled={disabled || answer === s.proposed}
                    onClick={() => onAnswer(s.proposed!)}
                    data-testid="rob-use-proposed"
                  >
                    Use proposed answer {s.proposed}
                  </Button>
                )}
                <Button
                  type="button"
                  size="sm"
                  variant="ghost"
                  disabled={disabled || support.quotes.includes(s.sentence)}
                  onClick={() => onSupport({ ...support, quotes: [...support.quotes, s.sentence].slice(0, 10) })}
                >
                  Quote as support
                </Button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {support.quotes.length > 0 && (
        <ul className="space-y-1 text-xs text-slate-700" aria-label={`Quotes supporting ${q.id}`}>
          {support.quotes.map((quote, i) => (
            <li key={i} className="flex items-start gap-2">
              <q className="flex-1 italic">{quote}</q>
              {!disabled && (
                <button
                  type="button"
                  className="text-brand-700 underline"
                  onClick={() => onSupport({ ...support, quotes: support.quotes.filter((_, j) => j !== i) })}
                >
                  Remove
                  <span className="sr-only">
                    {" "}
                    quote {i + 1} of {q.id}
                  </span>
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <div className="flex flex-col gap-1">
        <label htmlFor={`${name}-support`} className="text-xs font-medium text-slate-700">
          Support for {q.id}
        </label>
        <textarea
          id={`${name}-support`}
          className="min-h-12 rounded-md border border-slate-300 p-2 text-sm"
          value={support.text}
          maxLength={4000}
          disabled={disabled}
          onChange={(e) => onSupport({ ...support, text: e.target.value })}
        />
      </div>
    </fieldset>
  );
}

function OverrideField({
  id,
  label,
  options,
  value,
  disabled,
  onChange,
  optionText = (j) => ROBVIS_LABEL[j],
}: {
  id: string;
  label: string;
  options: readonly RobJudgement[];
  value: { judgement: RobJudgement; justification: string } | undefined;
  disabled: boolean;
  onChange: (v: { judgement: RobJudgement; justification: string } | undefined) => void;
  optionText?: (j: RobJudgement) => string;
}) {
  return (
    <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
      <div className="flex flex-col gap-1">
        <label htmlFor={id} className="text-xs font-medium text-slate-700">
          {label}
        </label>
        <select
          id={id}
          className="h-9 rounded-md border border-slate-300 bg-white px-2 text-sm"
          value={value?.judgement ?? ""}
          disabled={disabled}
          onChange={(e) =>
            onChange(
              e.target.value
                ? { judgement: e.target.value as RobJudgement, justification: value?.justification ?? "" }
                : undefined,
            )
          }
        >
          <option value="">Accept the proposal</option>
          {options.map((j) => (
            <option key={j} value={j}>
              {optionText(j)}
            </option>
          ))}
        </select>
      </div>
      {value && (
        <div className="flex flex-1 flex-col gap-1">
          <label htmlFor={`${id}-why`} className="text-xs font-medium text-slate-700">
            Justification (required)
          </label>
          <textarea
            id={`${id}-why`}
            className="min-h-12 rounded-md border border-slate-300 p-2 text-sm"
            value={value.justification}
            maxLength={2000}
            required
            disabled={disabled}
            onChange={(e) => onChange({ ...value, justification: e.target.value })}
          />
        </div>
      )}
    </div>
  );
}

function AssessmentForm({
  reviewId,
  study,
  outcome,
  existing,
  canWrite,
  onSaved,
  onClose,
  onSubmit,
  saveLabel = "Save assessment",
  note,
}: {
  reviewId: string;
  study: ApiRobStudy;
  outcome: { id: number; name: string };
  existing: FormStart | null;
  canWrite: boolean;
  onSaved: (a: ApiRobAssessment) => void;
  onClose: () => void;
  /** Dual mode: sends the assessment (a submission or the consensus) instead of saving it. */
  onSubmit?: (input: RobAssessmentInput) => Promise<void>;
  saveLabel?: string;
  note?: string;
}) {
  const [variant, setVariant] = useState<Rob2Variant>(existing?.variant ?? "assignment");
  const [answers, setAnswers] = useState<Record<string, Rob2Answer>>(existing?.answers ?? {});
  const [support, setSupport] = useState<Support>(existing?.support ?? {});
  const [overrides, setOverrides] = useState<Overrides>(existing?.overrides ?? {});
  const [suggestions, setSuggestions] = useState<ApiRobSuggestions | null>(null);
  const [busy, setBusy] = useState<"saving" | "suggesting" | null>(null);
  const [message, setMessage] = useState<{ kind: "error" | "ok"; text: string } | null>(null);
  const disabled = !canWrite || busy === "saving";
  const asked = useMemo(() => new Set(askedQuestions(variant, answers)), [variant, answers]);
  const proposal = useMemo(() => proposeDomains(variant, answers), [variant, answers]);
  const finalDomains = ROB2_DOMAINS.map((d) => overrides[d]?.judgement ?? proposal[d]);
  const complete = finalDomains.every((j): j is RobJudgement => j !== null);
  const worst = complete ? worstJudgement(finalDomains as RobJudgement[]) : null;
  const proposedOverall = ROB2_DOMAINS.every((d) => proposal[d] !== null)
    ? worstJudgement(ROB2_DOMAINS.map((d) => proposal[d]!))
    : null;
  const overall = overrides.overall?.judgement ?? worst;
  const severalConcerns = finalDomains.filter((j) => j === "some_concerns").length >= 2;
  const headingId = `rob-form-${study.recordId}`;

  const setOverride = (key: OverrideKey, value: { judgement: RobJudgement; justification: string } | undefined) =>
    setOverrides((o) => {
      const next = { ...o };
      if (value) next[key] = value;
      else delete next[key];
      return next;
    });

  async function findSuggestions() {
    setBusy("suggesting");
    setMessage(null);
    try {
      setSuggestions(await robApi.suggestions(reviewId, study.recordId, variant));
    } catch (e) {
      setMessage({ kind: "error", text: errorText(e) });
    } finally {
      setBusy(null);
    }
  }

  async function save() {
    setMessage(null);
    const unjustified = (Object.keys(overrides) as OverrideKey[]).filter((k) => !overrides[k]!.justification.trim());
    if (unjustified.length) {
      setMessage({
        kind: "error",
        text: `Give a justification for the changed judgement of ${unjustified.map((k) => (k === "overall" ? "Overall" : k)).join(", ")}.`,
      });
      return;
    }
    const askedNow = askedQuestions(variant, answers);
    const sent = Object.fromEntries(Object.entries(answers).filter(([id]) => askedNow.includes(id)));
    const sentSupport = Object.fromEntries(
      Object.entries(support).filter(([id, s]) => askedNow.includes(id) && (s.text.trim() || s.quotes.length)),
    );
    setBusy("saving");
    try {
      const input = { variant, answers: sent, support: sentSupport, overrides };
      if (onSubmit) {
        await onSubmit(input);
        return;
      }
      const { assessment } = await robApi.save(reviewId, study.recordId, outcome.id, input);
      onSaved(assessment);
    } catch (e) {
      setMessage({ kind: "error", text: errorText(e) });
    } finally {
      setBusy(null);
    }
  }

  return (
    <section
      aria-labelledby={headingId}
      className="space-y-4 rounded-lg border border-slate-300 p-3 sm:p-4"
      data-testid="rob-form"
    >
      <header className="flex flex-wrap items-start justify-between gap-2">
        <div>
          <h3 id={headingId} className="text-base font-semibold text-slate-900">
            {study.label}: {outcome.name}
          </h3>
          <p className="text-xs text-slate-600">{study.title}</p>
          {existing?.assessedBy && existing.updatedAt && (
            <p className="text-xs text-slate-600">
              Last saved by {existing.assessedBy} on {existing.updatedAt.slice(0, 10)}
            </p>
          )}
          {note && <p className="text-xs text-slate-700">{note}</p>}
        </div>
        <Button type="button" variant="ghost" size="sm" onClick={onClose}>
          Close
        </Button>
      </header>

      <fieldset className="space-y-1">
        <legend className="text-sm font-medium text-slate-900">Effect of interest</legend>
        {(["assignment", "adhering"] as const).map((v) => (
          <label key={v} className="flex items-center gap-2 text-sm">
            <input
              type="radio"
              name={`rob-variant-${study.recordId}`}
              value={v}
              checked={variant === v}
              disabled={disabled}
              onChange={() => setVariant(v)}
            />
            {VARIANT_WORDS[v]}
          </label>
        ))}
      </fieldset>

      <div className="flex flex-wrap items-center gap-2">
        <Button
          type="button"
          variant="outline"
          size="sm"
          onClick={findSuggestions}
          disabled={busy !== null}
          data-testid="rob-find-suggestions"
        >
          {busy === "suggesting" ? <Loader2 className="animate-spin" aria-hidden /> : <Search aria-hidden />} Find
          sentences in the study&apos;s text
        </Button>
        {suggestions && (
          <p className="text-xs text-slate-600" role="status">
            Text: {suggestions.source.kind}
            {suggestions.source.note ? ` (${suggestions.source.note})` : ""};{" "}
            {Object.values(suggestions.suggestions).reduce((n, s) => n + s.length, 0)} sentences found. Answers are
            proposed only where the text is explicit; you confirm each one.
          </p>
        )}
      </div>

      {ROB2_DOMAINS.map((d) => {
        const questions = rob2Questions(variant).filter((q) => q.domain === d && asked.has(q.id));
        return (
          <section
            key={d}
            aria-labelledby={`${headingId}-${d}`}
            className="space-y-2"
            data-testid="rob-domain"
            data-domain={d}
          >
            <h4 id={`${headingId}-${d}`} className="text-sm font-semibold text-slate-900">
              {d}: {ROB2_DOMAIN_TITLES[d]}
            </h4>
            {questions.map((q) => (
              <QuestionField
                key={q.id}
                q={q}
                answer={answers[q.id]}
                support={support[q.id] ?? { text: "", quotes: [] }}
                suggestions={suggestions?.suggestions[q.id] ?? []}
                disabled={disabled}
                onAnswer={(a) => setAnswers((prev) => ({ ...prev, [q.id]: a }))}
                onSupport={(s) => setSupport((prev) => ({ ...prev, [q.id]: s }))}
              />
            ))}
            <div
              className="flex flex-wrap items-center gap-3 rounded bg-slate-50 p-2 text-sm"
              data-testid="rob-domain-judgement"
            >
              <span>Algorithm&apos;s proposal:</span>
              <span data-testid="rob-proposed">
                <JudgementMark judgement={proposal[d]} />
              </span>
              {overrides[d] && (
                <span>
                  Your judgement: <JudgementMark judgement={overrides[d]!.judgement} />
                </span>
              )}
            </div>
            <OverrideField
              id={`${headingId}-${d}-override`}
              label={`Change the ${d} judgement`}
              options={ROB_JUDGEMENTS}
              value={overrides[d]}
              disabled={disabled}
              onChange={(v) => setOverride(d, v)}
            />
          </section>
        );
      })}

      <section aria-labelledby={`${headingId}-overall`} className="space-y-2 border-t border-slate-200 pt-3">
        <h4 id={`${headingId}-overall`} className="text-sm font-semibold text-slate-900">
          Overall risk of bias
        </h4>
        <p className="flex flex-wrap items-center gap-2 text-sm" data-testid="rob-overall">
          Least favourable domain{proposedOverall && worst !== proposedOverall ? " (after your changes)" : ""}:{" "}
          <JudgementMark judgement={worst} />
          {overrides.overall && (
            <>
              · Your overall judgement: <JudgementMark judgement={overrides.overall.judgement} />
            </>
          )}
        </p>
        {worst && (
          <OverrideField
            id={`${headingId}-overall-override`}
            label="Change the overall judgement (never more favourable than the worst domain)"
            options={ROB_JUDGEMENTS.filter((j) => ROB_JUDGEMENTS.indexOf(j) > ROB_JUDGEMENTS.indexOf(worst))}
            value={overrides.overall}
            disabled={disabled}
            onChange={(v) => setOverride("overall", v)}
            optionText={(j) =>
              j === "high" && worst === "some_concerns" && severalConcerns
                ? "High (some concerns in several domains)"
                : ROBVIS_LABEL[j]
            }
          />
        )}
      </section>

      {message && (
        <p
          role={message.kind === "error" ? "alert" : "status"}
          className={`text-sm ${message.kind === "error" ? "text-red-700" : "text-emerald-700"}`}
        >
          {message.text}
        </p>
      )}
      {canWrite ? (
        <div className="flex flex-wrap items-center gap-2">
          <Button type="button" onClick={save} disabled={busy !== null || !complete} data-testid="rob-save">
            {busy === "saving" && <Loader2 className="animate-spin" aria-hidden />} {saveLabel}
          </Button>
          {!complete && (
            <span className="text-xs text-slate-600">
              Answer the questions of every domain to save (overall: {overall ? ROBVIS_LABEL[overall] : "incomplete"}).
            </span>
          )}
        </div>
      ) : (
        <p className="text-sm text-slate-600">
          You are a viewer of this review: you can read the assessment but not change it.
        </p>
      )}
    </section>
  );
}

/** The dual state of one study in the studies table: where it stands, and what the reader may do. */
function DualActions({
  d,
  label,
  canWrite,
  onOpen,
}: {
  d: ApiRobDualStudy | undefined;
  label: string;
  canWrite: boolean;
  onOpen: (kind: "submit" | "compare") => void;
}) {
  const n = d?.submissions.length ?? 0;
  const status = !d
    ? "Not assessed yet"
    : d.consensus
      ? "Consensus recorded"
      : d.revealed
        ? "Both in: awaiting consensus"
        : `${n} of 2 submitted${d.mine ? " (yours is in)" : ""}`;
  const canSubmit = canWrite && !d?.revealed && (d?.mine || n < 2);
  return (
    <div className="flex flex-wrap items-center gap-2">
      <span className="text-xs text-slate-700" data-testid="rob-dual-status">
        {status}
      </span>
      {canSubmit && (
        <Button
          type="button"
          size="sm"
          variant="outline"
          onClick={() => onOpen("submit")}
          aria-label={`${d?.mine ? "Edit my assessment of" : "Assess"} ${label}`}
          data-testid="rob-dual-assess"
        >
          {d?.mine ? "Edit mine" : "Assess"}
        </Button>
      )}
      {d?.revealed && (
        <Button
          type="button"
          size="sm"
          variant="outline"
          onClick={() => onOpen("compare")}
          aria-label={`Compare the assessments of ${label}`}
          data-testid="rob-dual-compare"
        >
          Compare
        </Button>
      )}
    </div>
  );
}

const byQuestionId = (a: string, b: string) => {
  const [a1, a2] = a.split(".").map(Number);
  const [b1, b2] = b.split(".").map(Number);
  return a1! - b1! || a2! - b2!;
};

/** The consensus form's start: the latest consensus, else the answers both reviewers gave alike (same effect of interest). */
function consensusDraft(d: ApiRobDualStudy): FormStart {
  if (d.consensus) return d.consensus.assessment;
  const [a, b] = d.submissions.map((x) => x.assessment!) as [RobAssessmentContent, RobAssessmentContent];
  const answers =
    a.variant === b.variant
      ? Object.fromEntries(Object.entries(a.answers).filter(([q, ans]) => b.answers[q] === ans))
      : {};
  return { variant: a.variant, answers, support: {}, overrides: {} };
}

/** Both reviewers' assessments side by side, differing items highlighted, with the consensus and its history. */
function DualComparison({
  d,
  study,
  outcome,
  canResolve,
  onRecord,
  onClose,
}: {
  d: ApiRobDualStudy;
  study: ApiRobStudy;
  outcome: { id: number; name: string };
  canResolve: boolean;
  onRecord: () => void;
  onClose: () => void;
}) {
  const [s1, s2] = d.submissions as [ApiRobDualStudy["submissions"][number], ApiRobDualStudy["submissions"][number]];
  const a1 = s1.assessment!;
  const a2 = s2.assessment!;
  const diff = d.differing!;
  const questions = [
    ...new Set([...askedQuestions(a1.variant, a1.answers), ...askedQuestions(a2.variant, a2.answers)]),
  ].sort(byQuestionId);
  const answerOf = (x: RobAssessmentContent, q: string) =>
    askedQuestions(x.variant, x.answers).includes(q) ? (x.answers[q] ?? "—") : "not asked";
  const c = d.consensus?.assessment ?? null;
  const items: { key: string; label: string; differs: boolean; cell: (x: RobAssessmentContent) => ReactNode }[] = [
    {
      key: "variant",
      label: "Effect of interest",
      differs: diff.variant,
      cell: (x) => (x.variant === "assignment" ? "Assignment" : "Adhering"),
    },
    ...questions.map((q) => ({
      key: q,
      label: q,
      differs: diff.questions.includes(q),
      cell: (x: RobAssessmentContent) => answerOf(x, q),
    })),
    ...[...ROB2_DOMAINS, "overall" as const].map((k) => ({
      key: k,
      label: k === "overall" ? "Overall" : `${k} judgement`,
      differs: diff.judgements.includes(k),
      cell: (x: RobAssessmentContent) => <JudgementMark judgement={x.final[k]} />,
    })),
  ];
  const headingId = `rob-compare-${study.recordId}`;
  return (
    <section
      aria-labelledby={headingId}
      className="space-y-3 rounded-lg border border-slate-300 p-3 sm:p-4"
      data-testid="rob-compare"
    >
      <header className="flex flex-wrap items-start justify-between gap-2">
        <div>
          <h3 id={headingId} className="text-base font-semibold text-slate-900">
            {study.label}: {outcome.name}, two assessments
          </h3>
          <p className="text-sm text-slate-700" data-testid="rob-differences">
            {diff.questions.length} {diff.questions.length === 1 ? "answer differs" : "answers differ"},{" "}
            {diff.judgements.length} {diff.judgements.length === 1 ? "judgement differs" : "judgements differ"}
            {diff.variant ? "; the effects of interest differ" : ""}.
          </p>
        </div>
        <Button type="button" variant="ghost" size="sm" onClick={onClose}>
          Close
        </Button>
      </header>
      <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="The two assessments side by side">
        <table className="w-full border-collapse text-left text-sm">
          <caption className="sr-only">
            Both reviewers&apos; answers and judgements; rows that differ are highlighted
          </caption>
          <thead>
            <tr className="border-b border-slate-300">
              <th scope="col" className="py-1.5 pr-3 font-semibold">
                Item
              </th>
              <th scope="col" className="px-2 py-1.5 font-semibold">
                {s1.email}
              </th>
              <th scope="col" className="px-2 py-1.5 font-semibold">
                {s2.email}
              </th>
              <th scope="col" className="px-2 py-1.5 font-semibold">
                Consensus
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((it) => (
              <tr
                key={it.key}
                data-differs={it.differs}
                className={`border-b border-slate-100 ${it.differs ? "bg-amber-100" : ""}`}
                data-testid="rob-compare-row"
                data-item={it.key}
              >
                <th scope="row" className="py-1 pr-3 font-medium">
                  {it.label}
                  {it.differs && <span className="ml-1 text-xs font-normal text-amber-900">(differs)</span>}
                </th>
                <td className="px-2 py-1">{it.cell(a1)}</td>
                <td className="px-2 py-1">{it.cell(a2)}</td>
                <td className="px-2 py-1">{c ? it.cell(c) : <span className="text-xs text-slate-600">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {d.consensus ? (
        <p className="text-sm text-slate-700" data-testid="rob-consensus-by">
          Consensus recorded by {d.consensus.email} on {d.consensus.at.slice(0, 16).replace("T", " ")} UTC
          {d.history.length > 0 &&
            ` (earlier: ${d.history.map((h) => `${h.email}, ${h.at.slice(0, 10)}, overall ${ROBVIS_LABEL[h.assessment.final.overall]}`).join("; ")})`}
          .
        </p>
      ) : (
        <p className="text-sm text-slate-700" data-testid="rob-consensus-by">
          No consensus yet: the plots and the analysis leave this study out until the owner or a resolver records it.
        </p>
      )}
      {canResolve && (
        <Button type="button" size="sm" onClick={onRecord} data-testid="rob-record-consensus">
          {d.consensus ? "Change the consensus" : "Record consensus"}
        </Button>
      )}
    </section>
  );
}
