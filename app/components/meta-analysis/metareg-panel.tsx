import { BubblePlot } from "./exploration-plots";
import { fmt, fmtPct, pText } from "~/lib/meta-analysis/display";
import { formatCount } from "~/lib/format";
import { MetaInputError } from "~/lib/meta-analysis/errors";
import { analysisModelOptions } from "~/lib/meta-analysis/metareg";
import { bubbleFit } from "~/lib/meta-analysis/plot-data";
import {
  type ExploredAnalysis,
  exploreMetaRegression,
  type ModeratorColumn,
  PERMUTATION_SETTINGS,
  PERMUTATION_TEST,
} from "~/lib/meta-analysis/explore";

/** The bubble plot of a meta-regression on one numeric moderator (metafor regplot); nothing when it cannot be fitted. */
function Bubble({ a, moderator }: { a: ExploredAnalysis; moderator: ModeratorColumn }) {
  const x = moderator.values as (number | null)[];
  if (x.some((v) => v === null)) return null;
  const xs = x as number[];
  const yi = a.effects.map((e) => e.yi);
  try {
    const fit = bubbleFit(
      yi,
      a.effects.map((e) => e.vi),
      xs,
      analysisModelOptions(a),
    );
    return (
      <figure className="figure">
        <BubblePlot
          id={`bubble-${moderator.key}`}
          measure={a.measure}
          reportedMeasure={a.reportedMeasure}
          moderator={moderator.label}
          x={xs}
          yi={yi}
          labels={a.effects.map((e) => e.label)}
          fit={fit}
        />
      </figure>
    );
  } catch (e) {
    if (e instanceof MetaInputError) return null;
    throw e;
  }
}

/**
 * Meta-regression of one outcome's analysis on the moderators the reviewer ticks (page: checkboxes
 * via `onChange`; report: the chosen ones only, nothing when none): coefficients on the analysis
 * scale with SE, 95% CI and p, the omnibus test QM (χ² or, with Hartung–Knapp, F), residual
 * heterogeneity QE, residual τ² and the pseudo-R² (metafor's definitions); and, when the
 * selection holds PERMUTATION_TEST (off by default), metafor permutest's permutation p-values.
 */
export function MetaRegressionPanel({
  a,
  choices,
  selected,
  onChange,
}: {
  a: ExploredAnalysis;
  choices: ModeratorColumn[];
  selected: string[];
  onChange?: (keys: string[]) => void;
}) {
  const chosen = choices.filter((c) => selected.includes(c.key));
  if (!onChange && chosen.length === 0) return null;
  const permutation = selected.includes(PERMUTATION_TEST);
  const view = chosen.length > 0 ? exploreMetaRegression(a, chosen, { permutation }) : null;
  const r = view?.result ?? null;
  return (
    <section data-testid="meta-regression" aria-label="Meta-regression" className="metareg space-y-3">
      <h4 className="text-sm font-semibold text-slate-900">Meta-regression</h4>
      {onChange &&
        (choices.length === 0 || a.k < 3 ? (
          <p className="text-sm text-slate-600">
            No moderator in the data table varies across these studies (or fewer than 3 studies).
          </p>
        ) : (
          <fieldset className="flex flex-wrap gap-3 text-sm text-slate-700">
            <legend className="mb-1">Moderators</legend>
            {choices.map((c) => (
              <label key={c.key} className="flex items-center gap-1">
                <input
                  type="checkbox"
                  data-testid={`moderator-${c.key}`}
                  checked={selected.includes(c.key)}
                  onChange={(e) =>
                    onChange(e.target.checked ? [...selected, c.key] : selected.filter((k) => k !== c.key))
                  }
                />
                <span>{c.label}</span>
              </label>
            ))}
          </fieldset>
        ))}
      {onChange && chosen.length > 0 && (
        <label className="flex items-center gap-1 text-sm text-slate-700">
          <input
            type="checkbox"
            data-testid="permutation-test"
            checked={permutation}
            onChange={(e) =>
              onChange(
                e.target.checked ? [...selected, PERMUTATION_TEST] : selected.filter((k) => k !== PERMUTATION_TEST),
              )
            }
          />
          <span>
            Permutation test ({formatCount(PERMUTATION_SETTINGS.iterations)} permutations, seed{" "}
            {PERMUTATION_SETTINGS.seed}; metafor permutest)
          </span>
        </label>
      )}
      {view?.error && (
        <p role="alert" className="rounded-md bg-amber-50 p-2 text-sm text-amber-900">
          The meta-regression could not be computed: {view.error}
        </p>
      )}
      {r && (
        <>
          <table data-testid="meta-regression-table" className="w-full border-collapse text-left text-sm">
            <caption className="mb-1 text-left text-sm font-semibold text-slate-900">
              Coefficients (analysis scale)
            </caption>
            <thead>
              <tr className="border-b border-slate-300">
                <th scope="col" className="py-1 pr-3">
                  Term
                </th>
                <th scope="col" className="py-1 pr-3">
                  Estimate
                </th>
                <th scope="col" className="py-1 pr-3">
                  SE
                </th>
                <th scope="col" className="py-1 pr-3">
                  95% CI
                </th>
                <th scope="col" className={r.permutation ? "py-1 pr-3" : "py-1"}>
                  p
                </th>
                {r.permutation && (
                  <th scope="col" className="py-1">
                    Permutation p
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {r.names.map((name, j) => (
                <tr key={name} className="border-b border-slate-100">
                  <th scope="row" className="py-1 pr-3 font-normal">
                    {name === "intercept" ? "Intercept" : name}
                  </th>
                  <td className="py-1 pr-3 tabular-nums">{fmt(r.b[j], 4)}</td>
                  <td className="py-1 pr-3 tabular-nums">{fmt(r.se[j], 4)}</td>
                  <td className="py-1 pr-3 tabular-nums">{`${fmt(r.ci_lb[j], 4)} to ${fmt(r.ci_ub[j], 4)}`}</td>
                  <td className={r.permutation ? "py-1 pr-3 tabular-nums" : "py-1 tabular-nums"}>{pText(r.pval[j])}</td>
                  {r.permutation && <td className="py-1 tabular-nums">{pText(r.permutation.pval[j])}</td>}
                </tr>
              ))}
            </tbody>
          </table>
          <p data-testid="meta-regression-tests" className="text-sm text-slate-800">
            {`Test of moderators: ${r.QMdf[1] !== null ? `F(${r.QMdf[0]}, ${r.QMdf[1]})` : `QM(df = ${r.QMdf[0]})`} = ${fmt(r.QM)}, ${pText(r.QMp)}. ` +
              `Residual heterogeneity: QE(df = ${r.QEdf}) = ${fmt(r.QE)}, ${pText(r.QEp)}; residual τ² = ${fmt(r.tau2, 4)}, I² = ${fmtPct(r.I2)}` +
              (r.R2 !== null ? `; R² = ${fmtPct(r.R2)} of the heterogeneity accounted for.` : ".")}
          </p>
          {r.permutation && (
            <p data-testid="permutation-result" className="text-sm text-slate-800">
              {`Permutation test (${formatCount(r.permutation.iterations)} permutations, seed ${r.permutation.seed}): test of moderators ${pText(r.permutation.QMp)}. ` +
                "Permutation p-values guard against the too-small p-values of meta-regression with few studies (Higgins & Thompson 2004)."}
            </p>
          )}
          <p className="text-sm text-slate-600">
            Meta-regression is observational and needs many studies (about 10 per moderator) to be informative.
          </p>
          {chosen.length === 1 && chosen[0]!.kind === "numeric" && <Bubble a={a} moderator={chosen[0]!} />}
        </>
      )}
    </section>
  );
}
