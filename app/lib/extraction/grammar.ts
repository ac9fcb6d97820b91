/**
 * The reporting grammar of effect estimates: finds every "estimate + interval" a text reports,
 * over the tokens of tokens.ts, with the measure, the confidence level and the p-value that
 * belong to it. Pure; offsets are UTF-16 indices into the text.
 *
 * Grammar (informally; `[]` optional, `|` alternatives):
 *   effect    := [measure [connector]] estimate [unit] [sep] interval [p]
 *   interval  := [open] level? CI-name [sep] [open] bound range bound [close]      explicit
 *              | open bound range bound close                                    bare, bracketed
 *              | "," bound dash bound                                            bare, after a comma
 *   bound     := [minus] number [unit]        minus: U+2212, or a hyphen/en/em dash that starts
 *                                             a value ("(–3·27 to 1·91)", "WMD-5.27", "− 3.1")
 *   range     := "to" | dash | "," | ";"      ("," only inside an explicit interval)
 *   CI-name   := "CI" | "CIs" | "confidence interval" [("(CI)"|"[CI]")] | "CrI" | "credible interval" | "UI"
 *   p         := "p" ("="|"<"|">"|"≤"|"≥") number, after the interval, before the next effect
 * A bare interval counts only when the sentence has named a measure or a confidence interval
 * before it, or a table header "(95% CI)" precedes it; and only when it contains its estimate.
 * A measure named once applies to the bare bracketed values that follow in its sentence
 * ("adjusted mean difference (95% CI): sleep 12.0 (3.5 to 20.4), mood 0.7 (0.2 to 1.2)").
 * Numbers labelled as something else (p, I², n, t, z, χ², SD, IQR, range) are never estimates.
 */
import { isRatio, measureAt, type MeasureCode, type MeasureMention } from "./measures.ts";
import { tokenize, type Token } from "./tokens.ts";
import { splitSentences } from "./core/sentences.ts";

/** A number read from the text, with its quote. */
export interface QuotedValue {
  value: number;
  quote: string;
  start: number;
  end: number;
  /** Written with a percent sign. */
  percent: boolean;
}

/** A p-value as written ("P=0.09", "p < 0.001"). */
export interface PValue {
  quote: string;
  start: number;
  end: number;
  comparator: "=" | "<" | ">" | "≤" | "≥";
  value: number;
}

/** One effect estimate found by the grammar. */
export interface GrammarEffect {
  measure: MeasureCode | null;
  /** The measure's name as written, when it is named for this effect or once before it. */
  measureQuote: { quote: string; start: number; end: number } | null;
  estimate: QuotedValue;
  lower: QuotedValue;
  upper: QuotedValue;
  /** Confidence level in percent (95 for "95% CI"); null when not stated. */
  level: number | null;
  /** The interval was named ("95% CI …"), rather than a bare bracket licensed by context. */
  explicitInterval: boolean;
  p: PValue | null;
  /** The whole statement: from the measure name (when next to it) or the estimate to the upper bound. */
  quote: string;
  start: number;
  end: number;
  /** The sentence it sits in (offsets). */
  sentence: { start: number; end: number };
}

/**
 * Token index ranges [from, to) of the given sentences (the extraction core's one sentence splitter,
 * core/sentences.ts, or a document's shared sentence list): the ranges cover every token.
 */
export function sentenceRanges(
  tokens: readonly Token[],
  sentences: readonly { start: number; end: number }[],
): [number, number][] {
  const out: [number, number][] = [];
  if (tokens.length === 0) return out;
  const starts: number[] = [0];
  let k = 0;
  for (const s of sentences) {
    while (k < tokens.length && tokens[k]!.start < s.start) k++;
    if (k >= tokens.length) break;
    // Only a break after a full stop, ? or ! counts: the splitter's breaks at headings, labels and
    // blank lines would cut a table off from the header that names its measure.
    const prev = tokens[k - 1];
    if (!prev || !(prev.text === "." || prev.text === "?" || prev.text === "!" || prev.text === "…")) continue;
    if (k > starts[starts.length - 1]!) starts.push(k);
  }
  for (let i = 0; i < starts.length; i++) out.push([starts[i]!, starts[i + 1] ?? tokens.length]);
  return out;
}

const CI_WORDS = new Set(["ci", "cis", "cri", "ui", "c.i", "cl"]);
const LABEL_NOT_ESTIMATE = new Set([
  "p",
  "i2",
  "i²",
  "n",
  "t",
  "z",
  "f",
  "χ2",
  "χ²",
  "chi2",
  "df",
  "sd",
  "se",
  "sem",
  "iqr",
  "range",
  "q",
  "tau2",
  "τ2",
  "τ²",
  "h2",
  "k",
  "r2",
  "median",
  "aged",
  "age",
]);
const UNIT_WORDS = new Set([
  "mmol",
  "mol",
  "mg",
  "g",
  "kg",
  "µg",
  "μg",
  "mcg",
  "ng",
  "pg",
  "l",
  "dl",
  "ml",
  "mmhg",
  "bpm",
  "points",
  "point",
  "pp",
  "kcal",
  "iu",
  "u",
  "mm",
  "cm",
  "m",
  "m2",
  "km",
  "s",
  "sec",
  "min",
  "mins",
  "minutes",
  "h",
  "hrs",
  "hours",
  "days",
  "day",
  "weeks",
  "week",
  "months",
  "month",
  "years",
  "year",
  "µm",
  "μm",
  "nm",
  "µmol",
  "μmol",
  "nmol",
  "pmol",
  "score",
  "units",
  "steps",
  "cigarettes",
  "beats",
  "ms",
  "db",
  "°c",
  "mmol/l",
  "mg/dl",
  "kg/m2",
  "per",
  "percentage",
  "percent",
  "fold",
]);

interface Bound extends QuotedValue {
  /** Token index after the bound (and its unit). */
  next: number;
  first: number;
}

/**
 * A signed number starting at token `i`, with its unit; null when none. `minusOk` says whether a
 * dash at `i` may be a minus sign here (at the start of a value, not between two numbers).
 */
function readBound(tokens: readonly Token[], i: number, text: string, minusOk: boolean): Bound | null {
  const t = tokens[i];
  if (!t) return null;
  let numIdx = i;
  let negative = false;
  if (t.kind === "dash") {
    const n = tokens[i + 1];
    if (!n || n.kind !== "num") return null;
    const gap = n.start - t.end;
    if (t.text === "\u2212" || t.text === "\ufe63" || t.text === "\uff0d") {
      if (gap > 1) return null;
    } else {
      if (!minusOk || gap > 1) return null;
      if (gap === 1 && t.text !== "-" && t.text !== "\u2013") return null;
    }
    negative = true;
    numIdx = i + 1;
  } else if (t.kind !== "num") {
    return null;
  }
  const num = tokens[numIdx]!;
  if (num.value === undefined) return null;
  let next = numIdx + 1;
  let percent = false;
  let end = num.end;
  if (tokens[next]?.kind === "percent") {
    percent = true;
    end = tokens[next]!.end;
    next++;
  }
  next = skipUnit(tokens, next);
  const value = negative ? -num.value : num.value;
  return {
    value: value === 0 ? 0 : value,
    quote: text.slice(t.start, end),
    start: t.start,
    end,
    percent,
    next,
    first: i,
  };
}

/** Skips a unit after a number ("mmol/L", "kg/m2", "µM", "g", "mm Hg", "points"). */
function skipUnit(tokens: readonly Token[], i: number): number {
  let k = i;
  for (let steps = 0; steps < 4; steps++) {
    const t = tokens[k];
    if (!t) break;
    if (
      t.kind === "word" &&
      (UNIT_WORDS.has(t.norm) ||
        /^(?:[mµμnp]?(?:mol|g|l|m)|mmhg|hg|m2)$/.test(t.norm) ||
        /^[µμ][a-z]{1,3}$/.test(t.norm))
    ) {
      k++;
      continue;
    }
    if (t.kind === "punct" && t.text === "/" && tokens[k + 1]?.kind === "word" && k > i) {
      k++;
      continue;
    }
    break;
  }
  return k;
}

interface CiName {
  from: number;
  /** Token after the name and its separators. */
  next: number;
  level: number | null;
  start: number;
}

/**
 * A confidence-interval name at token `i`: "95% CI", "95%CI", "CI", "95% confidence interval
 * (CI)", "95% credible interval", "confidence limits", "95% CrI". Returns the token after it and
 * any separators (":", "=", ",", "of", "is", "was", "from", "(", "[", "±").
 */
function readCiName(tokens: readonly Token[], i: number): CiName | null {
  let k = i;
  let level: number | null = null;
  const t = tokens[k];
  if (!t) return null;
  const start = t.start;
  if (t.kind === "num" && tokens[k + 1]?.kind === "percent" && t.value! >= 50 && t.value! < 100) {
    level = t.value!;
    k += 2;
  }
  const w = tokens[k];
  if (!w || w.kind !== "word") return null;
  if (CI_WORDS.has(w.norm) && (w.text === w.text.toUpperCase() || w.text === "CrI" || w.text === "CIs")) {
    k++;
  } else if (
    (w.norm === "confidence" || w.norm === "credible" || w.norm === "credibility" || w.norm === "uncertainty") &&
    /^(?:intervals?|limits?|interval\(s\))$/.test(tokens[k + 1]?.norm ?? "")
  ) {
    k += 2;
    // "(CI)" / "[CI]"
    if (tokens[k]?.kind === "open" && CI_WORDS.has(tokens[k + 1]?.norm ?? "") && tokens[k + 2]?.kind === "close")
      k += 3;
  } else {
    return null;
  }
  for (let steps = 0; steps < 4; steps++) {
    const s = tokens[k];
    if (!s) break;
    if (
      (s.kind === "punct" && (s.text === ":" || s.text === "=" || s.text === ",")) ||
      (s.kind === "word" && /^(?:of|is|was|were|from|between|ranging|ranged)$/.test(s.norm)) ||
      (s.kind === "open" && s.text !== "{")
    ) {
      k++;
      continue;
    }
    break;
  }
  return { from: i, next: k, level, start };
}

/** Range separator at `i`: "to", a dash, "," or ";" (the latter two only when `commaOk`). */
function readRangeSep(tokens: readonly Token[], i: number, commaOk: boolean): { next: number; dash: boolean } | null {
  const t = tokens[i];
  if (!t) return null;
  if (t.kind === "word" && (t.norm === "to" || (t.norm === "and" && commaOk === true && false)))
    return { next: i + 1, dash: false };
  if (t.kind === "dash") return { next: i + 1, dash: true };
  if (commaOk && t.kind === "punct" && (t.text === "," || t.text === ";")) return { next: i + 1, dash: false };
  return null;
}

/** An interval: lower and upper bound, token span. */
interface Interval {
  lower: Bound;
  upper: Bound;
  from: number;
  next: number;
  /** The bounds are separated by "," or ";" (not "to" or a dash). */
  commaSep: boolean;
}

/** Reads "bound range bound" at `i`. */
function readInterval(tokens: readonly Token[], i: number, text: string, explicit: boolean): Interval | null {
  const lower = readBound(tokens, i, text, true);
  if (!lower) return null;
  const sep = readRangeSep(tokens, lower.next, explicit);
  if (!sep) return null;
  // After "to" or "," a dash is a minus; after a range dash, a second dash is a minus too.
  const upper = readBound(tokens, sep.next, text, true);
  if (!upper) return null;
  if (lower.percent !== upper.percent && lower.percent && !upper.percent && tokens[upper.next]?.kind !== "percent") {
    // "13% to 73%" and "0.6-1.3%" are fine; "5% to 7" is not an interval.
    return null;
  }
  let next = upper.next;
  while (tokens[next]?.kind === "close" || (tokens[next]?.kind === "punct" && tokens[next]!.text === "‡")) next++;
  return { lower, upper, from: i, next, commaSep: !sep.dash && tokens[lower.next]?.kind === "punct" };
}

/** True when the number at token `i` is labelled as a statistic other than an estimate. */
function labelledOther(tokens: readonly Token[], i: number): boolean {
  let k = i - 1;
  if (tokens[k]?.kind === "dash") k--;
  // "p = 0.02", "I2 = 65%", "n = 30", "p<0.001", "t(1267) 20·1"
  if (tokens[k]?.kind === "punct" && /^[=<>≤≥:]$/.test(tokens[k]!.text)) k--;
  const label = tokens[k];
  if (!label) return false;
  if (label.kind === "word" && LABEL_NOT_ESTIMATE.has(label.norm)) return true;
  if (
    label.kind === "close" &&
    tokens[k - 2]?.kind === "open" &&
    tokens[k - 3]?.kind === "word" &&
    LABEL_NOT_ESTIMATE.has(tokens[k - 3]!.norm)
  )
    return true;
  if (label.kind === "other" && /[χτ]/.test(label.text)) return true;
  if (label.kind === "punct" && label.text === "±") return true;
  return false;
}

/** A measure mention found by scanning tokens [from, to). */
interface Mention extends MeasureMention {
  idx: number;
}

/** Measure mentions in tokens [from, to). */
function mentionsIn(tokens: readonly Token[], from: number, to: number): Mention[] {
  const out: Mention[] = [];
  for (let i = from; i < to; i++) {
    const m = measureAt(tokens, i);
    if (m && m.to <= to) {
      // "risk ratio (RR)", "adjusted odds ratio [aOR]": one mention, name and abbreviation.
      const open = tokens[m.to];
      const abbr = open?.kind === "open" && m.to + 1 < to ? measureAt(tokens, m.to + 1) : null;
      if (abbr && tokens[abbr.to]?.kind === "close") {
        out.push({ ...m, to: abbr.to + 1, end: tokens[abbr.to]!.end, idx: i });
        i = abbr.to;
        continue;
      }
      out.push({ ...m, idx: i });
      i = m.to - 1;
    }
  }
  return out;
}

/** A p-value starting after token `i` (within a few tokens; skipping "I2 = 26%" and closers). */
function readPValue(tokens: readonly Token[], i: number, limit: number, text: string): PValue | null {
  let k = i;
  for (let steps = 0; steps < 10 && k < limit; steps++) {
    const t = tokens[k]!;
    if (
      t.kind === "word" &&
      (t.norm === "p" || t.norm === "p-value" || t.norm === "pinteraction" || t.norm === "ptrend")
    ) {
      const op = tokens[k + 1];
      let valueTok = tokens[k + 2];
      if (op?.kind === "punct" && /^[=<>≤≥]$/.test(op.text)) {
        let comparator = op.text as PValue["comparator"];
        let last = k + 2;
        if (tokens[k + 2]?.kind === "punct" && tokens[k + 2]!.text === "=" && (op.text === "<" || op.text === ">")) {
          comparator = op.text === "<" ? "≤" : "≥";
          valueTok = tokens[k + 3];
          last = k + 3;
        }
        if (valueTok?.kind === "num")
          return {
            quote: text.slice(t.start, valueTok.end),
            start: t.start,
            end: valueTok.end,
            comparator,
            value: valueTok.value!,
          };
        void last;
      }
      return null;
    }
    if (t.kind === "close" || (t.kind === "punct" && (t.text === "," || t.text === ";"))) {
      k++;
      continue;
    }
    // "I2 = 26%" / "I² = 0%" / "LoE, strong"
    if (t.kind === "word" && /^(?:i2|i²|i)$/.test(t.norm) && tokens[k + 1]?.text === "=") {
      k += 3;
      if (tokens[k]?.kind === "percent") k++;
      continue;
    }
    return null;
  }
  return null;
}

/** Where a bare interval is licensed: the sentence names a CI or a measure, or a table header does. */
interface Licence {
  level: number | null;
}

const HEADER_WINDOW = 900;

/** A table header naming intervals: "Relative risk (95% CI) Odds ratio (95% CI)". */
interface Header {
  end: number;
  level: number | null;
  measures: MeasureCode[];
}

/**
 * Every effect estimate with an interval in `text`, in text order. Each number is used once.
 * See the module comment for the grammar. `sentences` are the text's sentence spans in order (a
 * document's shared list, core/document's `documentSentences`); by default the core splitter's.
 */
export function parseEffects(
  text: string,
  tokens: readonly Token[] = tokenize(text),
  sentenceSpans: readonly { start: number; end: number }[] = splitSentences(text),
): GrammarEffect[] {
  const effects: GrammarEffect[] = [];
  const used = new Uint8Array(tokens.length);
  const sentences = sentenceRanges(tokens, sentenceSpans);
  let lastHeader: Header | null = null;

  for (const [sFrom, sTo] of sentences) {
    const mentions = mentionsIn(tokens, sFrom, sTo);
    const sentence = { start: tokens[sFrom]!.start, end: tokens[sTo - 1]!.end };
    // A table header "Relative risk (95% CI) Odds ratio (95% CI)" licenses the rows below it.
    for (let i = sFrom; i < sTo; i++) {
      if (tokens[i]!.kind !== "open") continue;
      const ci = readCiName(tokens, i + 1);
      if (!ci || (tokens[ci.next - 1]?.kind !== "close" && tokens[ci.next]?.kind !== "close")) continue;
      const before = mentions.filter((m) => m.to <= i && i - m.to <= 1);
      const prevHeader: Header | null = lastHeader;
      const measures: MeasureCode[] = prevHeader && tokens[i]!.start - prevHeader.end < 80 ? prevHeader.measures : [];
      const ms: MeasureCode[] = before.length ? [...measures, before[before.length - 1]!.code] : measures;
      lastHeader = { end: tokens[ci.next - 1]!.end, level: ci.level, measures: ms };
    }
    let sentenceCi = null as Licence | null;
    for (let i = sFrom; i < sTo; i++) {
      if (used[i]) continue;
      const ci = readCiName(tokens, i);
      let interval: Interval | null = null;
      let explicit = false;
      let openerIdx = i;
      if (ci) {
        interval = readInterval(tokens, ci.next, text, true);
        if (!interval) {
          // "95% CI" named with no numbers: licenses bare intervals later in the sentence.
          sentenceCi = { level: ci.level ?? sentenceCi?.level ?? null };
          i = ci.next - 1;
          continue;
        }
        explicit = true;
        sentenceCi = { level: ci.level ?? sentenceCi?.level ?? null };
      } else if (tokens[i]!.kind === "open" || (tokens[i]!.kind === "punct" && tokens[i]!.text === ",")) {
        const isComma = tokens[i]!.kind === "punct";
        // Inside brackets "(0.60, 0.93)" is a range only right after a named measure (checked below).
        const inner = readInterval(tokens, i + 1, text, !isComma);
        if (!inner) continue;
        // A bracketed bare interval must close right after it; a comma form needs a dash range.
        if (!isComma && tokens[inner.upper.next]?.kind !== "close") continue;
        if (isComma && !(tokens[inner.lower.next]?.kind === "dash" || tokens[inner.lower.next]?.norm === "to"))
          continue;
        if (isComma && tokens[inner.upper.next]?.kind === "dash") continue;
        interval = inner;
        openerIdx = i;
      } else {
        continue;
      }
      if (interval.lower.value > interval.upper.value) {
        continue;
      }
      // The estimate: right before the interval (or its CI name), skipping separators and units.
      const anchor = explicit ? ci!.from : openerIdx;
      let estimate = estimateBefore(tokens, anchor, sFrom, text, used);
      // "OR 2.1, p < 0.001, 95% CI 1.5 to 2.9": the number before the CI is a p-value; look further back.
      if (estimate && labelledOther(tokens, estimate.first))
        estimate = explicit ? estimateLookBack(tokens, anchor, sFrom, text, used, interval) : null;
      else if (explicit && !estimate) estimate = estimateLookBack(tokens, anchor, sFrom, text, used, interval);
      if (!estimate) {
        if (explicit) i = interval.next - 1;
        continue;
      }
      const est = estimate;
      // A mention before the estimate in this sentence names the measure.
      const ownMention = [...mentions].reverse().find((m) => m.to <= est.first);
      let measure: MeasureCode | null = ownMention?.code ?? null;
      let measureQuote = ownMention
        ? { quote: text.slice(ownMention.start, ownMention.end), start: ownMention.start, end: ownMention.end }
        : null;
      let level: number | null = explicit ? (ci!.level ?? null) : null;
      if (!explicit) {
        const inside = est.value >= interval.lower.value && est.value <= interval.upper.value;
        if (!inside) continue;
        if (interval.commaSep && !(ownMention && measureQuote && tokens[est.first]!.start - ownMention.end <= 12))
          continue;
        // In a column layout the number above a bracket belongs to another cell.
        const gap = text.slice(est.end, tokens[openerIdx]!.start);
        if (/\n[ \t]{2,}|[ \t]{3,}/.test(gap)) continue;
        const headerOk =
          lastHeader !== null &&
          tokens[est.first]!.start - lastHeader.end < HEADER_WINDOW &&
          tokens[est.first]!.start > lastHeader.end;
        if (sentenceCi) level = sentenceCi.level;
        else if (headerOk) level = lastHeader!.level;
        else if (!ownMention) continue;
        if (!sentenceCi && !headerOk && ownMention) level = null;
        if (headerOk && lastHeader!.measures.length > 0) {
          // Columns: the k-th estimate on a table line takes the k-th header measure.
          const lineStart = text.lastIndexOf("\n", est.start) + 1;
          const onLine = effects.filter((e) => e.start >= lineStart && e.start >= lastHeader!.end).length;
          if (!ownMention || ownMention.start < lastHeader!.end) {
            measure = lastHeader!.measures[Math.min(onLine, lastHeader!.measures.length - 1)]!;
            measureQuote = null;
          }
        }
        if (rejectBare(tokens, est, sFrom)) continue;
      } else if (level === null && sentenceCi) {
        level = sentenceCi.level;
      }
      if (isRatio(measure) && (est.value <= 0 || interval.lower.value <= 0)) continue;
      const adjacent =
        ownMention &&
        measureQuote &&
        tokens[est.first]!.start - ownMention.end <= 40 &&
        !effects.some((e) => e.start > ownMention.start && e.start < est.start);
      const start = adjacent ? ownMention!.start : est.start;
      const end = interval.upper.end;
      const nextEffectLimit = sTo;
      const p = readPValue(tokens, interval.next, nextEffectLimit, text);
      for (let k = est.first; k < interval.next; k++) used[k] = 1;
      effects.push({
        measure,
        measureQuote,
        estimate: strip(est),
        lower: strip(interval.lower),
        upper: strip(interval.upper),
        level,
        explicitInterval: explicit,
        p,
        quote: text.slice(start, end),
        start,
        end,
        sentence,
      });
      i = interval.next - 1;
    }
  }
  return effects.sort((a, b) => a.start - b.start);
}

function strip(b: Bound): QuotedValue {
  return { value: b.value, quote: b.quote, start: b.start, end: b.end, percent: b.percent };
}

/**
 * The estimate right before token `anchor` (an interval's CI name or opening bracket): skips
 * ",", ";", ":", "(", "[" and a unit, then reads a number (with its sign). Null when there is none
 * or it is already used.
 */
function estimateBefore(
  tokens: readonly Token[],
  anchor: number,
  floor: number,
  text: string,
  used: Uint8Array,
): Bound | null {
  let k = anchor - 1;
  let seps = 0;
  while (k >= floor && seps < 3) {
    const t = tokens[k]!;
    if ((t.kind === "punct" && (t.text === "," || t.text === ";" || t.text === ":")) || t.kind === "open") {
      k--;
      seps++;
      continue;
    }
    break;
  }
  // Units between the estimate and the separator: "8.8 µM, 95% CI", "-1.15 mmol/L, 95% CI", "41 g (18 to 63 g)".
  for (let steps = 0; steps < 3 && k >= floor; steps++) {
    const t = tokens[k]!;
    if (t.kind === "word" && skipUnit(tokens, k) > k) {
      k--;
      continue;
    }
    if (t.kind === "punct" && t.text === "/" && k - 1 >= floor && tokens[k - 1]!.kind === "word") {
      k--;
      continue;
    }
    break;
  }
  if (k < floor) return null;
  let numIdx = k;
  if (tokens[k]!.kind === "percent") numIdx = k - 1;
  const num = tokens[numIdx];
  if (!num || num.kind !== "num" || used[numIdx] || numIdx < floor) return null;
  const dash = tokens[numIdx - 1];
  const startIdx =
    dash && dash.kind === "dash" && numIdx - 1 >= floor && isMinus(tokens, numIdx - 1) ? numIdx - 1 : numIdx;
  return readBound(tokens, startIdx, text, true);
}

/** True when the dash at `i` is a minus sign: it touches its number and follows no number. */
function isMinus(tokens: readonly Token[], i: number): boolean {
  const d = tokens[i]!;
  const n = tokens[i + 1]!;
  const gap = n.start - d.end;
  if (gap > 1) return false;
  if (d.text === "\u2212") return true;
  const prev = tokens[i - 1];
  if (!prev) return true;
  if (prev.kind === "num" || prev.kind === "percent") return false;
  if (gap === 1) return prev.kind === "punct" || prev.kind === "open" || (prev.kind === "word" && prev.end < d.start);
  return true;
}

/**
 * An estimate further back in the sentence for an explicit CI that does not follow its estimate
 * ("was −0.55 but it displayed significant heterogeneity (95%CI −0.73, −0.29"): the nearest
 * unused number within 12 tokens that lies inside the interval and is not labelled as p, n, I².
 */
function estimateLookBack(
  tokens: readonly Token[],
  anchor: number,
  floor: number,
  text: string,
  used: Uint8Array,
  interval: Interval,
): Bound | null {
  for (let k = anchor - 1; k >= Math.max(floor, anchor - 12); k--) {
    const t = tokens[k]!;
    if (t.kind === "punct" && (t.text === ";" || t.text === ".")) return null;
    if (t.kind !== "num" || used[k]) continue;
    const startIdx = tokens[k - 1]?.kind === "dash" && isMinus(tokens, k - 1) ? k - 1 : k;
    const b = readBound(tokens, startIdx, text, true);
    if (!b) continue;
    if (labelledOther(tokens, startIdx)) continue;
    if (b.value >= interval.lower.value && b.value <= interval.upper.value) return b;
    return null;
  }
  return null;
}

/** Bare "x (a–b)" that reads as something other than an estimate with its CI. */
function rejectBare(tokens: readonly Token[], est: Bound, floor: number): boolean {
  // Counts "12 (10–14)" of integers in a sentence with no measure are handled by the licence; here:
  // a median or mean with its range/IQR, ages, years.
  for (let k = est.first - 1; k >= Math.max(floor, est.first - 4); k--) {
    const t = tokens[k]!;
    if (t.kind === "word" && /^(?:median|iqr|range|aged|age|years?|between|sd|mean±sd)$/.test(t.norm)) return true;
  }
  if (Number.isInteger(est.value) && est.value >= 1900 && est.value <= 2100) return true;
  return false;
}
