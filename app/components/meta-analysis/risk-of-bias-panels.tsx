import { fmt, isFiniteNumber, pText, toDisplayScale, effectName } from "~/lib/meta-analysis/display";
import { formatSofRow } from "~/lib/meta-analysis/summary-of-findings";
import type { OutcomeAnalysis } from "~/lib/meta-analysis/types";
import { summarySvg, trafficLightSvg } from "~/lib/risk-of-bias/plots";

/**
 * An SVG document from the pure plot builders, inline (the builders escape every text), in a
 * region that scrolls sideways on a narrow screen and can be reached and scrolled by keyboard.
 */
export function InlineSvg({ svg, testId }: { svg: string; testId: string }) {
  const markup = svg.replace(/^<\?xml[^>]*\?>\s*/, "");
  const title = /<title>([^<]*)<\/title>/.exec(markup)?.[1] ?? "Plot";
  return (
    <div
      className="overflow-x-auto [&>svg]:h-auto [&>svg]:max-w-none"
      tabIndex={0}
      role="region"
      aria-label={`${title
        .replace(/&amp;/g, "&")
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&quot;/g, '"')} (scrolls sideways on a narrow screen)`}
      data-testid={testId}
      dangerouslySetInnerHTML={{ __html: markup }}
    />
  );
}

/**
 * The robvis plots of one analysis' studies (issue 28): the traffic-light plot and the summary plot
 * weighted by the studies' meta-analysis weights (robvis `rob_summary(weighted = TRUE)`). Drawn
 * only when the job received the studies' domain judgements; studies without one are left out.
 */
export function RobPlots({
  a,
  index,
}: {
  a: Pick<OutcomeAnalysis, "outcome" | "effects" | "weights" | "riskOfBiasDomains">;
  index: number;
}) {
  const domains = a.riskOfBiasDomains;
  if (!domains) return null;
  const rows = a.effects.flatMap((e, i) => {
    const j = domains[i];
    return j ? [{ study: e.label, judgements: j, weight: a.weights[i] ?? 0 }] : [];
  });
  if (rows.length === 0) return null;
  return (
    <div className="space-y-3" data-testid="rob-plots">
      <h4 className="font-semibold text-slate-900">Risk of bias (RoB 2)</h4>
      <figure className="figure">
        <InlineSvg
          svg={trafficLightSvg(rows, `Risk of bias (RoB 2): ${a.outcome}`)}
          testId={`rob-traffic-light-${index}`}
        />
      </figure>
      <figure className="figure">
        <InlineSvg
          svg={summarySvg(rows, {
            weighted: true,
            title: `Risk of bias (RoB 2): ${a.outcome}, summary weighted by meta-analysis weight`,
          })}
          testId={`rob-summary-${index}`}
        />
      </figure>
    </div>
  );
}

/**
 * Sensitivity analysis by risk of bias (issue 28): the main analysis beside the analysis without
 * studies at high risk of bias and the one with low-risk studies only (same estimator and test).
 * Nothing is drawn when the job had no RoB 2 judgements for this outcome.
 */
export function RobSensitivityTable({
  a,
}: {
  a: Pick<OutcomeAnalysis, "outcome" | "measure" | "reportedMeasure" | "riskOfBiasSensitivity">;
}) {
  const rows = a.riskOfBiasSensitivity;
  if (!rows || rows.length === 0) return null;
  const name = effectName(a.measure, a.reportedMeasure);
  return (
    <div
      className="overflow-x-auto"
      tabIndex={0}
      role="region"
      aria-label={`Sensitivity analysis by risk of bias: ${a.outcome} (scrolls sideways on a narrow screen)`}
    >
      <table data-testid="rob-sensitivity" className="w-full border-collapse text-left text-sm">
        <caption className="mb-2 text-left text-sm font-semibold text-slate-900">
          Sensitivity analysis by risk of bias (RoB 2 overall): {a.outcome}
        </caption>
        <thead>
          <tr className="border-b border-slate-300">
            <th scope="col" className="py-1.5 pr-3 font-semibold">
              Studies
            </th>
            <th scope="col" className="py-1.5 pr-3 font-semibold">
              k
            </th>
            <th scope="col" className="py-1.5 pr-3 font-semibold">
              {name} [95% CI]
            </th>
            <th scope="col" className="py-1.5 pr-3 font-semibold">
              p
            </th>
            <th scope="col" className="py-1.5 font-semibold">
              I²
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr
              key={r.scenario}
              className="border-b border-slate-100 align-top"
              data-testid="rob-sensitivity-row"
              data-scenario={r.scenario}
            >
              <th scope="row" className="py-1.5 pr-3 font-medium">
                {r.label}
              </th>
              <td className="py-1.5 pr-3">{r.k}</td>
              {isFiniteNumber(r.estimate) && isFiniteNumber(r.ci_lb) && isFiniteNumber(r.ci_ub) ? (
                <>
                  <td className="py-1.5 pr-3 whitespace-nowrap">
                    {fmt(toDisplayScale(a.measure, r.estimate))} [{fmt(toDisplayScale(a.measure, r.ci_lb))},{" "}
                    {fmt(toDisplayScale(a.measure, r.ci_ub))}]
                  </td>
                  <td className="py-1.5 pr-3 whitespace-nowrap">{pText(r.pval)}</td>
                  <td className="py-1.5">{isFiniteNumber(r.I2) ? `${r.I2.toFixed(0)}%` : "—"}</td>
                </>
              ) : (
                <td colSpan={3} className="py-1.5 text-slate-600">
                  {r.note ?? "Not estimable."}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The Summary of Findings table in GRADEpro's layout: per outcome the participants (studies), the
 * certainty (⊕ symbols with lettered footnotes giving each rating-down reason), the relative effect
 * (95% CI) and the anticipated absolute effects (risk with the comparator, risk difference per
 * 1,000 with its 95% CI; continuous outcomes as the mean difference). Analyses stored before
 * issue 28 (no `summaryOfFindings`) are left out; nothing is drawn when none has one.
 */
export function SummaryOfFindingsTable({
  analyses,
}: {
  analyses: readonly Pick<OutcomeAnalysis, "outcome" | "summaryOfFindings">[];
}) {
  const rows = analyses.flatMap((a) =>
    a.summaryOfFindings
      ? [{ row: formatSofRow(a.outcome, a.summaryOfFindings), source: a.summaryOfFindings.assumedRiskSource }]
      : [],
  );
  if (rows.length === 0) return null;
  const footnotes: string[] = [];
  const letters = rows.map(({ row }) =>
    row.footnotes.map((f) => {
      footnotes.push(f);
      return String.fromCharCode(96 + footnotes.length);
    }),
  );
  const sources = [...new Set(rows.map((r) => r.source).filter((s) => s !== null))];
  return (
    <section aria-labelledby="sof-heading" className="space-y-2" data-testid="summary-of-findings">
      <h3 id="sof-heading" className="text-lg font-semibold text-slate-900">
        Summary of findings
      </h3>
      <div
        className="overflow-x-auto"
        tabIndex={0}
        role="region"
        aria-label="Summary of findings table (scrolls sideways on a narrow screen)"
      >
        <table className="w-full min-w-[640px] border-collapse text-left text-sm">
          <thead>
            <tr className="border-b border-slate-300 align-bottom">
              <th scope="col" rowSpan={2} className="py-1.5 pr-3 font-semibold">
                Outcome
              </th>
              <th scope="col" rowSpan={2} className="py-1.5 pr-3 font-semibold">
                No of participants (studies)
              </th>
              <th scope="col" rowSpan={2} className="py-1.5 pr-3 font-semibold">
                Certainty of the evidence (GRADE)
              </th>
              <th scope="col" rowSpan={2} className="py-1.5 pr-3 font-semibold">
                Relative effect (95% CI)
              </th>
              <th scope="colgroup" colSpan={2} className="py-1.5 font-semibold">
                Anticipated absolute effects
              </th>
            </tr>
            <tr className="border-b border-slate-300">
              <th scope="col" className="py-1.5 pr-3 font-semibold">
                Risk with comparator
              </th>
              <th scope="col" className="py-1.5 font-semibold">
                Risk difference with intervention (95% CI)
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ row }, i) => (
              <tr key={`${row.outcome}-${i}`} className="border-b border-slate-100 align-top" data-testid="sof-row">
                <th scope="row" className="py-1.5 pr-3 font-medium">
                  {row.outcome}
                </th>
                <td className="py-1.5 pr-3">{row.participants}</td>
                <td className="py-1.5 pr-3 whitespace-nowrap" data-testid="sof-certainty">
                  {row.certainty}
                  {letters[i]!.length > 0 && <sup> {letters[i]!.join(",")}</sup>}
                </td>
                <td className="py-1.5 pr-3">{row.relativeEffect}</td>
                <td className="py-1.5 pr-3">{row.riskWithComparator}</td>
                <td className="py-1.5">{row.riskDifference}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {footnotes.length > 0 && (
        <ol className="list-[lower-alpha] space-y-0.5 pl-5 text-xs text-slate-700" data-testid="sof-footnotes">
          {footnotes.map((f, i) => (
            <li key={i}>{f}</li>
          ))}
        </ol>
      )}
      <p className="text-xs text-slate-600">
        GRADE certainty: ⊕⊕⊕⊕ High, ⊕⊕⊕◯ Moderate, ⊕⊕◯◯ Low, ⊕◯◯◯ Very low. Risk with comparator:{" "}
        {sources.length === 0
          ? "not applicable (continuous outcomes)"
          : sources
              .map((s) =>
                s === "reviewer"
                  ? "the assumed control risk the reviewer entered"
                  : "the pooled control-group risk of the included studies",
              )
              .join("; ")}
        . Absolute effects: Cochrane Handbook chapter 14.
      </p>
    </section>
  );
}
