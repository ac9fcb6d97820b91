/**
 * Independent consistency checks of one reading's arm values (issue 26 item 1, round 4).
 *
 * The evidence items of extract.ts say where a reading was found (arms, outcome and timepoint named).
 * These checks ask something else: whether the numbers themselves agree with each other and with what the
 * report states elsewhere, as a reviewer checks a 2×2 table or a means table before entering it. They use
 * no threshold: each states a fact of arithmetic or of how a trial counts its participants (no arm analyses
 * more people than were randomised). Plausibility priors with a threshold (standardised difference ≤ 3, SD
 * ratio ≤ 4, allocation ratio ≤ 4, both arms complete) were tried and dropped because cross-validation over
 * folds of the open reports did not support them (docs/methods/arm-extraction.md, "Consistency checks").
 */
import type { ArmKey, ArmValues } from "./types.ts";

/** Names of the checks, for reasons and for switching one off in cross-validation (bench `--cv`). */
export type ConsistencyCheckName =
  "events-within-n" | "percent-agrees" | "n-within-stated" | "total-within-randomised" | "sd-positive" | "effect-size";

export const CONSISTENCY_CHECKS: readonly ConsistencyCheckName[] = [
  "events-within-n",
  "percent-agrees",
  "n-within-stated",
  "total-within-randomised",
  "sd-positive",
];

/** One check's verdict on a reading: ok, or what is wrong in words. A failed check withholds every value of the reading. */
export interface ConsistencyCheck {
  name: ConsistencyCheckName;
  ok: boolean;
  what: string;
}

/** What the report says besides the reading: the percentage printed with a count, and the n the text states per arm. */
export interface ConsistencyContext {
  kind: "count" | "continuous";
  values: Record<ArmKey, ArmValues>;
  /** A percentage printed beside the arm's count (with its decimals), when the reading has one. */
  percent?: Partial<Record<ArmKey, { value: number; decimals: number } | undefined>>;
  /** The group sizes the report's text states for the arm (randomised, allocated, analysed), any order. */
  statedSizes?: Partial<Record<ArmKey, number[] | undefined>>;
  /** The number of participants the report says were randomised in all (the largest such statement), when it says. */
  randomisedTotal?: number | null;
  /** Checks to run (default all); cross-validation switches one off at a time. */
  enabled?: readonly ConsistencyCheckName[];
}

const ARMS: readonly ArmKey[] = ["intervention", "comparator"];

/** Whether a whole count over n rounds to the printed percentage (half a unit of its last decimal, plus slack for 0.05 printed as 0.1). */
export function percentAgrees(events: number, n: number, percent: number, decimals: number): boolean {
  if (!(n > 0)) return false;
  return Math.abs((100 * events) / n - percent) <= 0.5 * 10 ** -decimals + 0.06;
}

/**
 * The consistency checks of one reading (pure). Each check is reported, passed or not; a check that does not apply (no percentage printed, no n stated in the text) is left out.
 *
 * - events-within-n: 0 ≤ events ≤ n in each arm.
 * - percent-agrees: a printed percentage equals events / n to its rounding.
 * - n-within-stated: the analysed n is at most the largest n the text states for the arm (no trial analyses
 *   more people than it randomised).
 * - total-within-randomised: the two arms' n together at most the number the report says were randomised.
 * - sd-positive: each SD > 0.
 */
export function consistencyChecks(context: ConsistencyContext): ConsistencyCheck[] {
  const { kind, values } = context;
  const on = new Set(context.enabled ?? CONSISTENCY_CHECKS);
  const out: ConsistencyCheck[] = [];
  const add = (name: ConsistencyCheckName, ok: boolean, what: string) => {
    if (on.has(name)) out.push({ name, ok, what });
  };
  const [a, b] = [values.intervention, values.comparator];
  if (kind === "count") {
    for (const arm of ARMS) {
      const { events, groupSize: n } = values[arm];
      if (events !== null && n !== null) {
        const ok = events >= 0 && events <= n && Number.isInteger(events);
        add("events-within-n", ok, ok ? `${arm}: events ≤ n` : `${arm}: ${events} events do not fit n = ${n}`);
        const pct = context.percent?.[arm];
        if (pct) {
          const agrees = percentAgrees(events, n, pct.value, pct.decimals);
          add(
            "percent-agrees",
            agrees,
            agrees
              ? `${arm}: ${events}/${n} is the printed ${pct.value}%`
              : `${arm}: ${events}/${n} = ${((100 * events) / n).toFixed(1)}%, not the printed ${pct.value}%`,
          );
        }
      }
    }
  }
  for (const arm of ARMS) {
    const n = values[arm].groupSize;
    const stated = context.statedSizes?.[arm]?.filter((s) => s > 0) ?? [];
    if (n === null || !stated.length) continue;
    const most = Math.max(...stated);
    const ok = n <= most;
    add(
      "n-within-stated",
      ok,
      ok
        ? `${arm}: n = ${n} within the ${most} the text states`
        : `${arm}: n = ${n} exceeds the ${most} the text states for the arm (another population or a total)`,
    );
  }
  const [na, nb] = [a.groupSize, b.groupSize];
  if (na !== null && nb !== null && context.randomisedTotal) {
    const ok = na + nb <= context.randomisedTotal;
    add(
      "total-within-randomised",
      ok,
      ok
        ? `n ${na} + ${nb} within the ${context.randomisedTotal} randomised`
        : `n ${na} + ${nb} exceeds the ${context.randomisedTotal} the report says were randomised`,
    );
  }
  if (kind === "continuous") {
    for (const arm of ARMS) {
      const sd = values[arm].sd;
      if (sd === null) continue;
      add("sd-positive", sd > 0, sd > 0 ? `${arm}: SD > 0` : `${arm}: SD ${sd} is not positive`);
    }
  }
  return out;
}
