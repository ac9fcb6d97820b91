/**
 * Stopping aids for prioritised screening (pure, no I/O).
 *
 * stoppingCriterion — the one the product shows: the hypergeometric test of Callaghan &
 * Müller-Hansen 2020 (Systematic Reviews 9:273), "recall ≥ target with a stated confidence", with
 * an exact hypergeometric CDF in log space (logHypergeometricCdf). Calibrated on simulated
 * screenings of the shared reviews by bench/stopping.mjs (docs/methods/screening.md).
 *
 * estimateRelevantRemaining — legacy (kept for the API's estimatedRelevantRemaining, no longer
 * shown): a point estimate of the relevant records still unscreened, from the order in which
 * inclusions were found. When records are screened in ranked order the chance that the t-th
 * screened record is relevant falls as screening goes on (the "gain curve" of technology-assisted
 * review; Cormack & Grossman 2016, "Engineering quality and reliability in technology-assisted
 * review", SIGIR). Two decay shapes are fitted to the 0/1 decision sequence by maximum likelihood
 * (Poisson likelihood, profiled over the decay rate b on a log grid with the scale a in closed
 * form for each b): exponential, p(t) = a·e^(−b t), and half-normal, p(t) = a·e^(−(b t)²), which
 * falls faster once the relevant cluster is exhausted. The estimate is the mean of the two fits'
 * expected inclusions among the unscreened records, Σ_{t = n+1}^{N} p(t).
 * On the benchmark's simulated screenings the exponential alone overestimated several-fold and the
 * half-normal alone sometimes underestimated; their mean was the better calibrated and stayed on
 * the "keep screening" side at 80 % and 95 % recall (docs/methods/screening.md).
 * The estimate is not calibrated: on real reviews it swung from 0.1 to 174 within a few decisions
 * and read 1.4 with 7 of 15 relevant records unscreened (issue 27), hence the test above.
 */

const GRID = 60;

/** A decay shape: its value at b·t, and the log-likelihood term Σ_{t: included} log p(t)/a. */
interface Shape {
  value: (bt: number) => number;
  logAtIncludes: (b: number, moments: Moments) => number;
}
/** Σ t and Σ t² over the positions t (1-based) of the inclusions. */
interface Moments {
  t1: number;
  t2: number;
}
const EXPONENTIAL: Shape = { value: (bt) => Math.exp(-bt), logAtIncludes: (b, m) => -b * m.t1 };
const HALF_NORMAL: Shape = { value: (bt) => Math.exp(-bt * bt), logAtIncludes: (b, m) => -b * b * m.t2 };

/** Σ_{t = from}^{to} value(b t), stopping once terms are negligible (shapes only decrease). */
function sumShape(shape: Shape, b: number, from: number, to: number): number {
  let sum = 0;
  for (let t = from; t <= to; t++) {
    const v = shape.value(b * t);
    sum += v;
    if (v < 1e-12) break;
  }
  return sum;
}

/** Expected inclusions in the unscreened tail under the maximum-likelihood fit of `shape`. */
function fittedTail(n: number, found: number, moments: Moments, total: number, shape: Shape, bMax: number): number {
  let best = { ll: -Infinity, a: 0, b: 0 };
  for (let g = 0; g <= GRID; g++) {
    const b = g === 0 ? 0 : bMax * Math.pow(1e-4, 1 - g / GRID);
    const sum = b === 0 ? n : sumShape(shape, b, 1, n);
    const a = Math.min(found / sum, 1);
    const ll = found * Math.log(a) + shape.logAtIncludes(b, moments) - a * sum;
    if (ll > best.ll) best = { ll, a, b };
  }
  const { a, b } = best;
  return a * (b === 0 ? total - n : sumShape(shape, b, n + 1, total));
}

/**
 * @param sequence decisions in screening order, true = included.
 * @param total number of records in the review (screened + unscreened), ≥ sequence.length.
 * @returns expected relevant records among the total − sequence.length unscreened, in
 *   [0, unscreened]; null when nothing has been included yet (no rate to extrapolate).
 */
export function estimateRelevantRemaining(sequence: readonly boolean[], total: number): number | null {
  const n = sequence.length;
  const remaining = Math.max(total - n, 0);
  if (!sequence.includes(true)) return null;
  if (remaining === 0) return 0;
  const moments: Moments = { t1: 0, t2: 0 };
  let found = 0;
  sequence.forEach((included, i) => {
    if (!included) return;
    found++;
    moments.t1 += i + 1;
    moments.t2 += (i + 1) ** 2;
  });
  const estimate =
    (fittedTail(n, found, moments, total, EXPONENTIAL, 20 / n) +
      fittedTail(n, found, moments, total, HALF_NORMAL, 4 / n)) /
    2;
  return Math.min(estimate, remaining);
}

/** Length of the run of exclusions at the end of `sequence` (true = included). */
export function trailingExclusions(sequence: readonly boolean[]): number {
  let run = 0;
  for (let t = sequence.length - 1; t >= 0 && !sequence[t]; t--) run++;
  return run;
}

/** ln n! for integers n ≥ 0: a table below 1024, Stirling's series (error < 1e-16 relative) above. */
const LOG_FACTORIAL_TABLE = (() => {
  const table = new Float64Array(1024);
  for (let i = 2; i < table.length; i++) table[i] = table[i - 1] + Math.log(i);
  return table;
})();
function logFactorial(n: number): number {
  if (n < LOG_FACTORIAL_TABLE.length) return LOG_FACTORIAL_TABLE[n];
  const inv = 1 / n;
  const inv2 = inv * inv;
  return n * Math.log(n) - n + 0.5 * Math.log(2 * Math.PI * n) + inv * (1 / 12 - inv2 * (1 / 360 - inv2 / 1260));
}
function logChoose(n: number, k: number): number {
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

/**
 * ln P(X ≤ k) for X ~ Hypergeometric(population `population`, `successes` successes in it,
 * `draws` drawn without replacement) — R's phyper(k, successes, population − successes, draws,
 * log.p = TRUE). Exact sum of the probability mass over max(0, draws − failures) … k, each term
 * from the previous by the ratio of consecutive masses, summed in log space (no underflow however
 * small the tail). Arguments are integers with 0 ≤ successes, draws ≤ population; −Infinity when
 * k is below the support, 0 when k reaches its top.
 */
export function logHypergeometricCdf(k: number, population: number, successes: number, draws: number): number {
  const failures = population - successes;
  if (!(successes >= 0 && failures >= 0 && draws >= 0 && draws <= population)) {
    throw new RangeError(`hypergeometric: invalid population ${population}, successes ${successes}, draws ${draws}`);
  }
  const lo = Math.max(0, draws - failures);
  const hi = Math.min(successes, draws);
  if (k < lo) return -Infinity;
  if (k >= hi) return 0;
  let term = logChoose(successes, lo) + logChoose(failures, draws - lo) - logChoose(population, draws);
  let max = term;
  const terms = [term];
  for (let i = lo; i < k; i++) {
    term += Math.log(((successes - i) * (draws - i)) / ((i + 1) * (failures - draws + i + 1)));
    terms.push(term);
    if (term > max) max = term;
  }
  let sum = 0;
  for (const t of terms) sum += Math.exp(t - max);
  return Math.min(0, max + Math.log(sum));
}

/** Settings of the stopping criterion: the recall to reach and the confidence to claim it with. */
export interface StoppingOptions {
  /** Recall target in (0, 1); default 0.95. */
  recallTarget?: number;
  /** Confidence level in (0, 1); default 0.95 (reject at p < 1 − confidence). */
  confidence?: number;
}

/** The stopping criterion's state after a sequence of decisions (see stoppingCriterion). */
export interface StoppingCriterion {
  recallTarget: number;
  confidence: number;
  /** Decisions the criterion read (includes and excludes). */
  screened: number;
  /** Included records among them. */
  relevantFound: number;
  /** p-value of H0 "recall < recallTarget" (the smallest over the ranked tails); null with no include. */
  pValue: number | null;
  /** True when H0 is rejected: recall ≥ recallTarget with the given confidence. */
  reached: boolean;
  /** Decisions after which the criterion was first met without an include since; null when not reached. */
  reachedAfter: number | null;
  /**
   * Lower confidence bound on the recall so far (the largest recall r/R the test supports at the
   * confidence), in (0, 1]; null while the evidence only supports the trivial bound (every
   * unscreened record could be relevant) or nothing has been included.
   */
  recallLowerBound: number | null;
  /** Upper confidence bound on the relevant records still unscreened; null when recallLowerBound is. */
  relevantLeftUpperBound: number | null;
}

/**
 * Evidence of a decision sequence, prepared once: the positions of the includes counted from the
 * end, so each ranked tail ("urn") is summarised by its length and its includes.
 */
interface Tails {
  screened: number;
  found: number;
  /** tailEnd[j] = the longest tail with exactly j includes (j = 0 … found); −1 when there is none. */
  tailEnd: number[];
  /** Unscreened records. */
  unscreened: number;
}

function tailsOf(sequence: readonly boolean[], total: number): Tails {
  const screened = sequence.length;
  const fromEnd: number[] = [];
  for (let t = screened - 1; t >= 0; t--) if (sequence[t]) fromEnd.push(screened - 1 - t);
  const found = fromEnd.length;
  // A tail of the last n decisions with j includes: n runs from (position of the j-th include
  // from the end) + 1 to the position of the (j+1)-th (or the whole sequence).
  const tailEnd = Array.from({ length: found + 1 }, (_, j) => {
    const end = j < found ? fromEnd[j] : screened;
    const start = j === 0 ? 1 : fromEnd[j - 1] + 1;
    return end >= start ? end : -1;
  });
  return { screened, found, tailEnd, unscreened: Math.max(total - screened, 0) };
}

/**
 * ln p of H0 "at least `relevantTotal` relevant records in the review", the smallest over the
 * ranked tails. For a tail of the last n decisions holding k includes, with r_AL = found − k
 * includes before it, the tail is treated as a random sample of the n + unscreened records left
 * when it began, which hold ≥ relevantTotal − r_AL relevant records under H0; p = P(X ≤ k).
 * Within the tails of equal k, p only falls as n grows (one more excluded draw from the same
 * population), so only the longest tail of each k is tested.
 */
function logPValue(tails: Tails, relevantTotal: number): number {
  let best = 0;
  for (let k = 0; k <= tails.found; k++) {
    const n = tails.tailEnd[k];
    if (n < 0) continue;
    const population = n + tails.unscreened;
    const successes = relevantTotal - (tails.found - k);
    const logP = successes > population ? -Infinity : logHypergeometricCdf(k, population, successes, n);
    if (logP < best) best = logP;
    if (best === -Infinity) break;
  }
  return best;
}

/**
 * Statistical stopping criterion for prioritised screening: the hypergeometric test of Callaghan
 * & Müller-Hansen (2020, "Statistical stopping criteria for automated screening in systematic
 * reviews", Systematic Reviews 9:273; their buscar package's calculate_h0), applied to the ranked
 * tail ("ranked quasi-sampling"). H0: recall < recallTarget, i.e. the review holds at least
 * K = ⌊found / recallTarget⌋ + 1 relevant records. Each tail of the last n decisions is taken as a
 * random sample without replacement from the records left when it began; seeing so few includes
 * in it under H0 has probability P(X ≤ k), X ~ Hypergeometric(n + unscreened, K − r_AL, n). H0 is
 * rejected (screening may stop) when the smallest p over the tails is below 1 − confidence.
 * Assumption: records were screened in ranked order, so a tail holds at least as many relevant
 * records as a random sample would (the ranking is no worse than random); then the test is
 * conservative. It is invalid if the ranking was bypassed or the search missed records.
 * The recall bound inverts the same test: R* = the smallest total the test rejects, so
 * recall ≥ found / (R* − 1) and ≤ R* − 1 − found relevant records are left, at the confidence.
 * @param sequence decisions in screening order, true = included ('maybe' left out).
 * @param total records in the review (screened + unscreened).
 */
export function stoppingCriterion(
  sequence: readonly boolean[],
  total: number,
  options: StoppingOptions = {},
): StoppingCriterion {
  const recallTarget = options.recallTarget ?? 0.95;
  const confidence = options.confidence ?? 0.95;
  if (!(recallTarget > 0 && recallTarget < 1 && confidence > 0 && confidence < 1)) {
    throw new RangeError("recallTarget and confidence must lie strictly between 0 and 1");
  }
  const logAlpha = Math.log(1 - confidence);
  const tails = tailsOf(sequence, total);
  const base = { recallTarget, confidence, screened: tails.screened, relevantFound: tails.found };
  if (tails.found === 0) {
    return {
      ...base,
      pValue: null,
      reached: false,
      reachedAfter: null,
      recallLowerBound: null,
      relevantLeftUpperBound: null,
    };
  }
  const targetTotal = Math.floor(tails.found / recallTarget) + 1;
  const logP = logPValue(tails, targetTotal);
  const reached = logP < logAlpha;

  // Smallest rejected total R* (p falls as the total grows): bisection on [found + 1, found + unscreened + 1].
  let lo = tails.found + 1;
  let hi = tails.found + tails.unscreened + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (logPValue(tails, mid) < logAlpha) hi = mid;
    else lo = mid + 1;
  }
  const informative = tails.unscreened === 0 || lo - 1 < tails.found + tails.unscreened;
  return {
    ...base,
    pValue: Math.exp(logP),
    reached,
    reachedAfter: reached ? firstReached(sequence, total, recallTarget, logAlpha) : null,
    recallLowerBound: informative ? tails.found / (lo - 1) : null,
    relevantLeftUpperBound: informative ? lo - 1 - tails.found : null,
  };
}

/**
 * The fewest decisions after which the criterion held, counting only prefixes since the last
 * include (appending exclusions only lowers p: each tail gains an excluded draw from the same
 * population, and new tails are added), found by bisection.
 */
function firstReached(sequence: readonly boolean[], total: number, recallTarget: number, logAlpha: number): number {
  const lastInclude = sequence.lastIndexOf(true);
  const holds = (length: number) => {
    const tails = tailsOf(sequence.slice(0, length), total);
    return logPValue(tails, Math.floor(tails.found / recallTarget) + 1) < logAlpha;
  };
  let lo = lastInclude + 1;
  let hi = sequence.length;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (holds(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
