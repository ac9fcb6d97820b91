/**
 * Inter-rater agreement of screening (issue 30): percent agreement and Cohen's κ with its 95%
 * confidence interval, per stage and per pair of reviewers. Pure: no I/O.
 */
import type { ScreeningDecision } from "./reviews";

/** Cohen's κ of a k×k table of counts (rows: rater 1's category, columns: rater 2's). */
export interface KappaResult {
  /** Items both raters rated. */
  n: number;
  /** Observed proportion of agreement p_o (0–1); null when n = 0. */
  agreement: number | null;
  /** Cohen's κ = (p_o − p_e) / (1 − p_e); null when undefined (n = 0 or p_e = 1). */
  kappa: number | null;
  /** Large-sample standard error of κ (see {@link cohensKappa}); null when κ is. */
  se: number | null;
  /** κ ± z·SE, clipped to [−1, 1]; null when κ is. */
  kappaCi: [number, number] | null;
  table: number[][];
}

/** z for a two-sided 95% interval. */
export const Z_95 = 1.959963984540054;

/**
 * Cohen's κ (Cohen 1960) of a square table of counts, with the large-sample standard error of
 * Fleiss, Cohen & Everitt (1969, Psychol Bull 72:323–327), the non-null SE given in Fleiss,
 * Levin & Paik (2003, Statistical Methods for Rates and Proportions, 3rd ed., ch. 18):
 *
 *   SE(κ) = √{ [ Σᵢ pᵢᵢ (1 − (pᵢ. + p.ᵢ)(1 − κ))² + (1 − κ)² Σᵢ≠ⱼ pᵢⱼ (p.ᵢ + pⱼ.)² − (κ − p_e(1 − κ))² ] / (n (1 − p_e)²) }
 *
 * (the same as Stata's kapci "analytical" interval and statpsych's ci.kappa). The CI is
 * κ ± z·SE (Wald), clipped to [−1, 1].
 */
export function cohensKappa(table: readonly (readonly number[])[], z: number = Z_95): KappaResult {
  const k = table.length;
  const copy = table.map((row) => [...row]);
  const n = copy.reduce((s, row) => s + row.reduce((a, b) => a + b, 0), 0);
  if (n === 0) return { n: 0, agreement: null, kappa: null, se: null, kappaCi: null, table: copy };
  const p = copy.map((row) => row.map((x) => x / n));
  const rows = p.map((row) => row.reduce((a, b) => a + b, 0));
  const cols = Array.from({ length: k }, (_, j) => p.reduce((s, row) => s + row[j]!, 0));
  const po = p.reduce((s, row, i) => s + row[i]!, 0);
  const pe = rows.reduce((s, r, i) => s + r * cols[i]!, 0);
  if (pe >= 1 - 1e-12) return { n, agreement: po, kappa: null, se: null, kappaCi: null, table: copy };
  const kappa = (po - pe) / (1 - pe);
  let a = 0;
  let b = 0;
  for (let i = 0; i < k; i++) {
    a += p[i]![i]! * (1 - (rows[i]! + cols[i]!) * (1 - kappa)) ** 2;
    for (let j = 0; j < k; j++) if (i !== j) b += p[i]![j]! * (cols[i]! + rows[j]!) ** 2;
  }
  const variance = (a + (1 - kappa) ** 2 * b - (kappa - pe * (1 - kappa)) ** 2) / (n * (1 - pe) ** 2);
  const se = Math.sqrt(Math.max(0, variance));
  const kappaCi: [number, number] = [Math.max(-1, kappa - z * se), Math.min(1, kappa + z * se)];
  return { n, agreement: po, kappa, se, kappaCi, table: copy };
}

/** One vote as the agreement reads it. */
export interface AgreementVote {
  recordId: number;
  userId: string;
  decision: ScreeningDecision;
}

/** Agreement of one pair of reviewers: `table` [[inc/inc, inc/exc], [exc/inc, exc/exc]], rows = `reviewers[0]`. */
export interface PairAgreement extends KappaResult {
  reviewers: [string, string];
}

/** Agreement of one stage: every record with two votes (rows = the first vote cast), and per pair. */
export interface StageAgreement extends KappaResult {
  pairs: PairAgreement[];
}

const INCLUDE = 0;
const EXCLUDE = 1;
/** 'maybe' counts as include (Covidence's rule). */
const category = (d: ScreeningDecision) => (d === "exclude" ? EXCLUDE : INCLUDE);

/**
 * Screening agreement of one stage from the reviewers' current votes (in the order cast). Each
 * record counts once, with its first two votes: the stage's 2×2 table puts the first vote in rows
 * and the second in columns; each pair of reviewers (ordered by user id) has its own table with
 * the first reviewer in rows. Include vs exclude, 'maybe' counting as include.
 */
export function screeningAgreement(votes: readonly AgreementVote[]): StageAgreement {
  const byRecord = new Map<number, AgreementVote[]>();
  for (const v of votes) {
    const list = byRecord.get(v.recordId);
    if (!list) byRecord.set(v.recordId, [v]);
    else if (list.length < 2 && !list.some((x) => x.userId === v.userId)) list.push(v);
  }
  const overall = [
    [0, 0],
    [0, 0],
  ];
  const pairTables = new Map<string, { reviewers: [string, string]; table: number[][] }>();
  for (const list of byRecord.values()) {
    if (list.length < 2) continue;
    const [first, second] = list as [AgreementVote, AgreementVote];
    overall[category(first.decision)]![category(second.decision)]! += 1;
    const [x, y] = first.userId < second.userId ? [first, second] : [second, first];
    const key = `${x.userId}\n${y.userId}`;
    let pair = pairTables.get(key);
    if (!pair) {
      pair = {
        reviewers: [x.userId, y.userId],
        table: [
          [0, 0],
          [0, 0],
        ],
      };
      pairTables.set(key, pair);
    }
    pair.table[category(x.decision)]![category(y.decision)]! += 1;
  }
  const pairs = [...pairTables.values()]
    .sort((a, b) => a.reviewers[0].localeCompare(b.reviewers[0]) || a.reviewers[1].localeCompare(b.reviewers[1]))
    .map(({ reviewers, table }) => ({ reviewers, ...cohensKappa(table) }));
  return { ...cohensKappa(overall), pairs };
}
