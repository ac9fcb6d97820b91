/**
 * Stopping aid: estimate of the relevant records still unscreened, from the order in which
 * inclusions were found. When records are screened in ranked order the chance that the t-th
 * screened record is relevant falls roughly exponentially (the "gain curve" of technology-assisted
 * review; Cormack & Grossman 2016, "Engineering quality and reliability in technology-assisted
 * review", SIGIR; Howard et al. 2020, Syst Rev 9:36, model the same tail). We fit
 * p(t) = a·e^(−b t) to the 0/1 decision sequence by maximum likelihood (Poisson approximation,
 * profile over b on a log grid, a closed form for each b) and return the expected number of
 * inclusions among the remaining records: Σ_{t = n+1}^{N} a·e^(−b t).
 * The estimate is a guide for the reviewer, never a rule that stops screening.
 */

const GRID = 60;

/**
 * @param sequence decisions in screening order, true = included.
 * @param total number of records in the review (screened + unscreened), ≥ sequence.length.
 * @returns expected relevant records among the total − sequence.length unscreened, ≥ 0;
 *   null when nothing has been included yet (no rate to extrapolate) or nothing was screened.
 */
export function estimateRelevantRemaining(sequence: readonly boolean[], total: number): number | null {
  const n = sequence.length;
  const remaining = Math.max(total - n, 0);
  const found = sequence.reduce((s, y) => s + (y ? 1 : 0), 0);
  if (n === 0 || found === 0) return null;
  if (remaining === 0) return 0;
  let best = { ll: -Infinity, a: found / n, b: 0 };
  const bMax = 20 / n;
  for (let g = 0; g <= GRID; g++) {
    const b = g === 0 ? 0 : bMax * Math.pow(1e-4, 1 - g / GRID);
    let sumExp = 0;
    let sumTy = 0;
    for (let t = 1; t <= n; t++) {
      sumExp += Math.exp(-b * t);
      if (sequence[t - 1]) sumTy += t;
    }
    const a = Math.min(found / sumExp, 1);
    const ll = found * Math.log(a) - b * sumTy - a * sumExp;
    if (ll > best.ll) best = { ll, a, b };
  }
  const { a, b } = best;
  const tail = b === 0 ? a * remaining : (a * Math.exp(-b * (n + 1)) * (1 - Math.exp(-b * remaining))) / (1 - Math.exp(-b));
  return Math.min(tail, remaining);
}

/** Length of the run of exclusions at the end of `sequence` (true = included). */
export function trailingExclusions(sequence: readonly boolean[]): number {
  let run = 0;
  for (let t = sequence.length - 1; t >= 0 && !sequence[t]; t--) run++;
  return run;
}
