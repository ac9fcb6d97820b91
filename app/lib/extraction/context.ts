/**
 * The words around an effect estimate: its outcome phrase, its comparison and its timepoint,
 * each read from the effect's own sentence; and whether it is the text's own pooled result.
 * Pure; heuristics over the sentence text, documented per function.
 */
import type { GrammarEffect } from "./grammar.ts";

const STOP_LEAD =
  /^(?:(?:and|or|but|with|for|in|on|of|the|a|an|its|their|our|both|all|including|especially|specifically|particularly|respectively|whereas|while|as|to|from|by|at|was|were|is|are|had|has|have|significantly|significant|non-?significant|lower|higher|reduced|reduce|reduces|reduction|increased|increase|increases|decreased|decrease|improved|improve|improves|greater|fewer|more|less|overall|similar|similarly|there|no|not|that|this|these|those|which|also|further|a\s+further|result|resulted|showed|show|shows|revealed|found|observed|effect|effects|changes|change|risks?|odds|rates?|levels?|except|exception|negative|positive|specifically|namely|e\.g\.|i\.e\.|than|then|only|any|each|per|after|before|during|within|among|between|compared|versus|vs\.?|likely|may|might|did|does|do|be|been|being|statistically|protective|inverse|associations?|associated|related|relationship)(?![\w-])[\s,]*)+/i;
const STOP_TAIL =
  /(?:[\s,]+(?:and|or|was|were|is|are|with|for|in|at|of|the|a|an|overall|respectively|compared|vs\.?|versus|among|between|than|by|to|on|from|had|has|have|which|that|when|after|during|were|being|showed|revealed|group|groups))+$/i;

/** Words that make a phrase a verdict or a group rather than an outcome. */
const NOT_OUTCOME =
  /^(?:meta-analytic|for example|example|respectively|however|adjusted|unadjusted|crude|line|changed|strong|moderate|weak|conditional|secondary|primary|sensitivity analys[ie]s|subgroup analys[ie]s|analysis of the interaction|(?:low|moderate|high|very low)[- ]certainty evidence|certainty evidence|[\p{L} -]*\bpopulations?|(?:in\s+)?(?:men|women|males|females|children|adults)|results?|patients?|participants?|subjects?|studies|study|trials?|analysis|analyses|model|models|group|groups|estimates?|data|evidence|findings?|controls?|cases?|meta-analysis|summary|pooled|overall|total|sensitivity|subgroup|random effects?|fixed effects?|the result|rr|or|hr|ci|p|smd|wmd|md|ratio|difference|adults?|women|men|males?|females?|populations?|people)$/iu;

/** True when a phrase holds a bare number ("12 weeks", "0.5"), not a name with digits ("IL-6", "COVID-19", "HbA1c"). */
export function hasBareNumber(phrase: string): boolean {
  return /(?:^|[\s(,;:/])[-−+]?\d|%|\bI\s*[2²]\b/u.test(phrase);
}

/** Tidies a phrase: hyphenated line breaks joined, whitespace collapsed, noise words trimmed. */
export function tidyPhrase(raw: string, maxWords = 8): string {
  let s = raw
    .replace(/(\p{L})[-‐‑]\s*\n\s*(\p{Ll})/gu, "$1$2")
    .replace(/\s+/g, " ")
    .trim();
  s = s
    .replace(/\([^()]*\d[^()]*\)/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  s = s.replace(/\s*\([^()]*$/, "").replace(/^[^()]*\)\s*/, "");
  for (let k = 0; k < 4; k++)
    s = s
      .replace(STOP_LEAD, "")
      .replace(STOP_TAIL, "")
      .replace(/^[\s,;:.()[\]-]+|[\s,;:.([-]+$/g, "")
      .trim();
  const words = s.split(" ");
  if (words.length > maxWords) s = words.slice(-maxWords).join(" ");
  if (!/\p{L}{2}/u.test(s)) return "";
  if (NOT_OUTCOME.test(s)) return "";
  return lowerInitial(s);
}

/** "Mortality" (a capital from the sentence start) → "mortality"; acronyms ("VTE", "COVID-19") stay. */
export function lowerInitial(s: string): string {
  const first = s.split(/\s/)[0]!;
  return /^\p{Lu}[\p{Ll}'’-]+$/u.test(first) ? s[0]!.toLowerCase() + s.slice(1) : s;
}

/** Measure names and CI words that must not end up in an outcome phrase (abbreviations match case-sensitively: "OR" is not "or"). */
const MEASURE_NAME_WORDS =
  /\b(?:(?:adjusted|pooled|overall|summary|combined|crude|meta-analytic)\s+)*(?:odds ratios?|hazard ratios?|relative risks?|risk ratios?|rate ratios?|(?:standardi[sz]ed |weighted |weight )?mean differences?|difference in means|correlation coefficients?|coefficients?|95\s*%\s*CI)\b/gi;
const MEASURE_ABBREVIATIONS = /\b(?:a?ORs?|a?HRs?|sHRs?|a?RRs?|IRRs?|W?MDs?|SMDs?|RD|CI)\b/g;
/** `s` with measure names and abbreviations replaced by spaces. */
function stripMeasureWords(s: string): string {
  return s.replace(MEASURE_NAME_WORDS, " ").replace(MEASURE_ABBREVIATIONS, " ");
}

/**
 * The outcomes a text defines: "The primary outcome was 6 month sustained, biochemically verified
 * abstinence." → { primary: "6 month sustained, biochemically verified abstinence" }.
 */
export function definedOutcomes(text: string): { primary: string | null; secondary: string | null } {
  const read = (kind: string) => {
    const m = new RegExp(
      String.raw`\b(?:the\s+)?(?:main\s+)?${kind}\s+(?:outcome|end\s*point|endpoint)s?\s+(?:was|were|is|are|included)\s+(?:the\s+|a\s+)?([^.;]{3,120})`,
      "i",
    ).exec(text);
    if (!m) return null;
    const phrase = tidyPhrase(m[1]!.replace(/\s+(?:at|from|until|during|after)\s+[\s\S]*$/i, ""), 10);
    return phrase || null;
  };
  return { primary: read("primary"), secondary: read("secondary") };
}

/** Verbs and frames after which the outcome follows ("reduces X", "risk of X", "reduction in X"). */
const OUTCOME_ANCHOR =
  /^[\s\S]*\b(?:reduc(?:es|ed|e|ing)|increas(?:es|ed|e|ing)|improv(?:es|ed|e|ing)|lower(?:s|ed|ing)?|rais(?:es|ed|e)|affect(?:s|ed)?|prevent(?:s|ed)?|predict(?:s|ed)?|(?:risks?|odds|hazards?|incidence|rates?|levels?|occurrence|prevalence|concentrations?|reductions?|increases?|decreases?|changes?|improvements?|differences?|effects?|impact|gains?|declines?)\s+(?:of|in|on|to|for)|need\s+for|associated\s+with|association\s+(?:with|between)|(?:with\s+the\s+)?exception\s+of|results?\s+(?:of|for|on)|specifically|namely|including|such\s+as|for\s+example)\s+/i;
/** Where an outcome phrase ends: a comparison, a population or a time. */
const OUTCOME_END =
  /\s+(?:when|compared|versus|vs\.?|than|among|between|in\s+(?:the\s+)?(?:patients|participants|people|subjects|those|women|men|adults|children|groups?|vaccinated|unvaccinated|intervention|control|treatment)|at\s+(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|week|month|year|the end)|after\s+\d+|during|from(?!\s+(?:[a-z-]+\s+){0,2}causes?\b)|with\s+(?:the\s+)?(?:exception|intervention|treatment)|attributable|was|were|is|are|had|has|did|may|could|remained|though)\b[\s\S]*$/i;
/** A subject with a verdict: "<outcome> was lower / were reduced / were consistent". */
const SUBJECT_VERDICT =
  /(?:^|[.;:]\s*)(?:the\s+)?([^.;:]{3,90}?)\s+(?:was|were|is|are)\s+(?:(?:not\s+|also\s+|significantly\s+|slightly\s+|statistically\s+)*)(?:lower|higher|reduced|increased|decreased|improved|similar|consistent|comparable|greater|smaller|associated|related|significant|non-?significant|unchanged|better|worse|elevated|raised|lowered)\b/i;

/** Drops brackets that hold numbers or definitions, measure names and the CI words. */
function cleanClause(s: string): string {
  let out = s;
  for (let k = 0; k < 2; k++)
    out = out.replace(/\([^()]*\)|\[[^[\]]*\]/g, (m) => (/\d|defined|i\.e\.|e\.g\.|if /i.test(m) ? " " : m));
  return stripMeasureWords(out)
    .replace(/\s*[:=]\s*$/, "")
    .replace(/[ \t]+/g, " ");
}

/** The outcome words of one clause: after its last verb or frame, up to a comparison or time. */
function outcomeInClause(clause: string): string {
  let phrase = clause;
  const anchor = OUTCOME_ANCHOR.exec(phrase);
  if (anchor && phrase.length - anchor[0].length > 2) phrase = phrase.slice(anchor[0].length);
  phrase = phrase.replace(OUTCOME_END, "");
  return tidyPhrase(phrase);
}

/**
 * The outcome phrase of an effect, from its sentence (empty string when none is found):
 * 1. "<measure> of|for <outcome> was|for|in …" ("pooled RR of bladder cancer for SHS exposure");
 * 2. "<outcome> was|were lower|consistent …" before the effect;
 * 3. the clause just before the bracket or value that holds the effect, after its last verb or
 *    frame ("favipiravir reduces the progression to invasive mechanical ventilation (RR …)",
 *    "a significant reduction in glycosylated hemoglobin (WMD …)", "low birth weight 0.82 (…)"),
 *    cut before a comparison, population or time ("… when compared with other therapies");
 *    a clause that names nothing hands over to the clause before it.
 * Only the text after the previous effect of the sentence (`previousEnd`) is read, so each effect
 * of a list gets the words written for it.
 */
export function outcomeOf(text: string, e: GrammarEffect, previousEnd = e.sentence.start): string {
  const from = Math.max(e.sentence.start, Math.min(previousEnd, e.start));
  const sent = text.slice(from, e.sentence.end);
  const rel = e.start - from;
  const measureEnd = e.measureQuote && e.measureQuote.start >= from ? e.measureQuote.end - from : -1;
  // 1. "RR of bladder cancer for SHS exposure was 1.16"
  if (measureEnd >= 0 && measureEnd <= e.estimate.start - from) {
    const after = sent.slice(measureEnd, e.estimate.start - from);
    const m =
      /^\s*(?:\([^)]*\)\s*)?(?:of|for|in)\s+([\p{L}][^,;()]*?)(?:\s+(?:for|in|among|with|was|were|is|of|at|between|after|associated|when|compared|ranged|changed)\b|$)/iu.exec(
        after,
      );
    if (m) {
      const tidy = tidyPhrase(stripMeasureWords(m[1]!));
      if (tidy) return tidy;
    }
  }
  let before = sent.slice(0, rel);
  // The effect sits in a bracket: the outcome is named before the bracket.
  const open = Math.max(before.lastIndexOf("("), before.lastIndexOf("["));
  if (open !== -1 && !/[)\]]/.test(before.slice(open))) before = before.slice(0, open);
  const cleaned = cleanClause(before);
  // 2. a subject with its verdict, in the last clause
  const lastClause = cleaned.split(/[;:]/).pop() ?? "";
  const verdict = SUBJECT_VERDICT.exec(lastClause);
  // "… were similar for the primary outcome (RR …)": the words after "for" name it.
  const forTail = verdict
    ? /\bfor\s+(?:the\s+|both\s+)?([^,;()]{3,60})\s*$/i.exec(lastClause.slice(verdict.index + verdict[0].length))
    : null;
  const forOutcome = forTail ? tidyPhrase(forTail[1]!) : "";
  if (forOutcome && !hasBareNumber(forOutcome)) return forOutcome;
  // "<exposure> was associated with an increased risk of <outcome>": the outcome follows the verdict.
  const afterVerdict = verdict ? lastClause.slice(verdict.index + verdict[0].length) : "";
  if (
    verdict &&
    /(?:associated|related)$/i.test(verdict[0]) &&
    /\b(?:risks?|odds|incidence|hazards?|likelihood)\s+of\b/i.test(afterVerdict)
  ) {
    const tidy = outcomeInClause(afterVerdict);
    if (tidy && !hasBareNumber(tidy)) return tidy;
  }
  if (verdict && !/\b(?:we|it|this|there|results?)\b/i.test(verdict[1]!.split(" ")[0] ?? "")) {
    const parts = verdict[1]!
      .split(/,\s*/)
      .filter((p) => p.trim() && !/^(?:though|although|while|which|who|as|despite|however)\b/i.test(p.trim()));
    for (let k = parts.length - 1; k >= 0; k--) {
      const tidy = tidyPhrase(parts[k]!.replace(OUTCOME_END, ""));
      if (tidy && !hasBareNumber(tidy) && !/^(?:we|it|this|there)$/i.test(tidy)) return tidy;
    }
  }
  // 3. the clause before the effect, then the ones before it
  const clauses = cleaned.split(/[;:]|,(?!\s*(?:or|and)\s+in\b)/);
  for (let k = clauses.length - 1, tries = 0; k >= 0 && tries < 3; k--, tries++) {
    const tidy = outcomeInClause(clauses[k]!);
    if (tidy && !hasBareNumber(tidy)) return tidy;
  }
  return "";
}

/** Words that name no outcome of their own: a phrase made only of them is vague ("adjusted means differed"). */
const VAGUE_WORDS =
  /^(?:adjusted|unadjusted|crude|means?|medians?|values?|scores?|levels?|outcomes?|end\s*points?|measures?|results?|estimates?|effects?|differences?|differed|differs?|changes?|changed|between|groups?|arms?|the|a|an|of|in|for|and|or|with|at|all|both|overall|primary|secondary|main|other|this|these|those|treatment|intervention|control|comparison|analysis|analyses|models?|was|were|is|are|significant|significantly|statistically|similar|lower|higher)$/i;

/**
 * True when an outcome phrase does not name what was measured: empty, or only words such as
 * "adjusted means", "scores", "outcomes", "differed between groups". The product marks such rows
 * for the reviewer instead of pooling them.
 */
export function isVagueOutcome(phrase: string): boolean {
  const words = phrase
    .toLowerCase()
    .split(/[\s,;:()-]+/)
    .filter(Boolean);
  return words.length === 0 || words.every((w) => VAGUE_WORDS.test(w));
}

/** Genetic models of association studies ("allelic", "dominant", "TT vs CC" is their comparison). */
const GENETIC_MODEL =
  /\b(allel(?:e|ic)|dominant|recessive|homozyg(?:ous|ote)|heterozyg(?:ous|ote)|additive|co-?dominant|over-?dominant|multiplicative|log-?additive)\s+(?:genetic\s+|inheritance\s+|comparison\s+)?models?\b/i;

/**
 * The genetic model an effect is reported under, read between the previous effect of its sentence
 * and the effect itself ("…, the recessive model (OR 1.52, …)"), as "recessive model"; or null.
 */
export function geneticModelOf(text: string, e: GrammarEffect, previousEnd: number): string | null {
  const from = Math.max(e.sentence.start, Math.min(previousEnd, e.start));
  const m = GENETIC_MODEL.exec(text.slice(from, e.end));
  return m ? `${m[1]!.toLowerCase()} model` : null;
}

/**
 * The subject of an outcome phrase that names a genetic model: "migraine under the allelic model"
 * → "migraine"; "dominant model" → "" (the model alone names no outcome).
 */
export function withoutGeneticModel(phrase: string): string {
  const cut = phrase.replace(
    /\s*(?:\b(?:under|in|for|with|using)\s+)?(?:the\s+)?(?:[\p{L}-]+\s+)?(?:genetic\s+|inheritance\s+)?models?\b.*$/iu,
    "",
  );
  return GENETIC_MODEL.test(phrase) || /\bmodels?\b/i.test(phrase) ? tidyPhrase(cut) : phrase;
}

/**
 * Outcomes listed before a "respectively" list of effects ("Interleukin-6, interleukin-10 and
 * TNF-α were elevated (SMD …; SMD …; SMD …, respectively)"): the k-th listed name for the k-th
 * effect, or null when the sentence does not list exactly one name per effect before its first
 * effect. `effects` are the sentence's effects in order.
 */
export function respectivelyOutcomes(text: string, effects: readonly GrammarEffect[]): string[] | null {
  const n = effects.length;
  const first = effects[0];
  if (!first || n < 2) return null;
  const sent = text.slice(first.sentence.start, first.sentence.end);
  if (!/\brespectively\b/i.test(sent)) return null;
  let before = text.slice(first.sentence.start, first.start);
  const open = Math.max(before.lastIndexOf("("), before.lastIndexOf("["));
  if (open !== -1 && !/[)\]]/.test(before.slice(open))) before = before.slice(0, open);
  before = cleanClause(before).split(/[;:]/).pop() ?? "";
  // The list is the subject before its verb, or the words after the last frame ("levels of …").
  before = before.replace(
    /\s+(?:was|were|is|are|had|have|showed|remained|differed|improved|increased|decreased|fell|rose)\b[\s\S]*$/i,
    "",
  );
  const anchor = OUTCOME_ANCHOR.exec(before);
  if (anchor && before.length - anchor[0].length > 2) before = before.slice(anchor[0].length);
  const items = before
    .split(/\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+/i)
    .map((x) => x.trim())
    .filter(Boolean);
  if (items.length !== n) return null;
  const names = items.map((x) => tidyPhrase(x.replace(OUTCOME_END, "")));
  return names.every((x) => x && !hasBareNumber(x)) ? names : null;
}

/**
 * The comparison an effect is about, from its sentence: "A vs B" / "A versus B" (the pair
 * nearest the effect), "<subject> … compared with|to B", "B … with A" ("hazard ratio with
 * aspirin"), or "between A and B"; null when the sentence names none.
 */
export function comparisonOf(text: string, e: GrammarEffect, previousEnd = e.sentence.start): string | null {
  // A pair written between the previous effect and this one is this effect's own ("…; TT vs CC: OR …").
  {
    const own = vsPairs(
      text.slice(Math.max(e.sentence.start, Math.min(previousEnd, e.start)), e.end).replace(/\s+/g, " "),
    );
    const m = own[own.length - 1];
    const a = m ? trimGroup(m[1]!) : "";
    const b = m ? trimGroup(m[2]!) : "";
    if (a && b) return `${a} vs ${b}`;
  }
  const sent = text.slice(e.sentence.start, e.sentence.end).replace(/\s+/g, " ");
  const vs = vsPairs(sent);
  if (vs.length) {
    const m = vs[vs.length - 1]!;
    const a = trimGroup(m[1]!);
    const b = trimGroup(m[2]!);
    if (a && b) return `${a} vs ${b}`;
  }
  const inGroups =
    /\bin\s+(?:the\s+)?([\p{L}\d][\p{L}\d\s/+-]{1,40}?)\s+(?:group|arm)s?\s+(?:compared\s+(?:with|to)|than(?:\s+in)?)\s+(?:the\s+)?([\p{L}\d][\p{L}\d\s/+-]{1,40}?)(?:\s+(?:group|arm)s?)?(?=[,;:().]|\s|$)/iu.exec(
      sent,
    );
  if (inGroups) {
    const a = trimGroup(inGroups[1]!);
    const b = trimGroup(inGroups[2]!);
    if (a && b) return `${a} vs ${b}`;
  }
  const cmp =
    /\bcompared\s+(?:with|to)\s+(?:the\s+)?([\p{L}][\p{L}\d\s/+-]{1,50}?)(?=[,;:().]|\s+(?:in|for|on|at|was|were|and|did|had|showed|participants|patients|\(|groups?\b)|$)/iu.exec(
      sent,
    );
  if (cmp) {
    const b = trimGroup(cmp[1]!);
    const subject =
      /(?:^|[,;]\s*)([\p{L}][\p{L}\d/+-]*(?:\s+[\p{L}][\p{L}\d/+-]*){0,2})\s+(?:resulted|reduced|increased|improved|lowered|decreased|yielded|helped|produced|led|showed|had|was|were|did|may)\b/iu.exec(
        sent,
      );
    const a = subject ? trimGroup(subject[1]!) : "";
    if (b) return a && a.toLowerCase() !== b.toLowerCase() ? `${a} vs ${b}` : `vs ${b}`;
  }
  const withArm = /\b(?:ratio|difference|risk)\s+(?:with|for)\s+([\p{L}][\p{L}\d-]{2,30})\s*,/iu.exec(sent);
  if (withArm) return trimGroup(withArm[1]!) || null;
  const between =
    /\bbetween\s+(?:the\s+)?([\p{L}][\p{L}\d\s/-]{1,40}?)\s+and\s+(?:the\s+)?([\p{L}][\p{L}\d\s/-]{1,40}?)(?=\s+groups?\b|[,;:().]|$)/iu.exec(
      sent,
    );
  if (between) {
    const a = trimGroup(between[1]!);
    const b = trimGroup(between[2]!);
    if (a && b) return `${a} vs ${b}`;
  }
  return null;
}

/** "A vs B" / "A versus B", each side up to 40 characters, ending at punctuation or a following preposition. */
const VS_PAIR =
  /([\p{L}\d][\p{L}\d\s/+-]{0,40}?)\s+(?:vs\.?|versus|v)\s+([\p{L}\d][\p{L}\d\s/+-]{0,40}?)(?=[,;:()\]]|\s+(?:in|for|on|at|was|were|group|groups|participants|patients)\b|$)/giu;

/** The word VS_PAIR needs between its sides; a text without it has no pair, so the costly lazy scan is skipped. */
const VS_WORD = /\s(?:vs\.?|versus|v)\s/iu;

/** The last text vsPairs scanned and its pairs: a sentence's effects ask for the same sentence in turn. */
let lastVs: { text: string; pairs: RegExpExecArray[] } | null = null;

/** Every VS_PAIR match in `text`, in order. */
function vsPairs(text: string): RegExpExecArray[] {
  if (lastVs?.text === text) return lastVs.pairs;
  const pairs = VS_WORD.test(text) ? [...text.matchAll(VS_PAIR)] : [];
  lastVs = { text, pairs };
  return pairs;
}

function trimGroup(raw: string): string {
  let s = raw.replace(/\s+/g, " ").trim();
  s = s.replace(
    /^(?:(?:and|or|the|a|an|in|of|for|with|those|patients|participants|subjects|people|individuals|who|received|receiving|treated|assigned|to|was|were|is|are|between)\s+)+/i,
    "",
  );
  s = s.replace(/\s+(?:group|groups|arm|arms|participants|patients|subjects|alone|only)$/i, "").trim();
  const words = s.split(" ");
  if (words.length > 5) s = words.slice(-5).join(" ");
  // An allele is one capital letter ("T vs C").
  return /\p{L}{2}|\d|^\p{Lu}$/u.test(s) ? s : "";
}

const NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\\d+(?:[.·]\\d+)?";
const UNIT = "(?:days?|weeks?|months?|years?|hours?|h|wk|mo|yr)";
const TIME_PATTERNS: RegExp[] = [
  new RegExp(String.raw`\b(?:\d+\s*(?:-|–|to)\s*\d+)[\s?]*${UNIT}\b`, "i"),
  new RegExp(
    String.raw`\b(?:at|after|over|by|within|in|for|during|through|up to)\s+(?:the\s+)?(?:${NUMBER_WORDS})[\s-]*${UNIT}(?:\s+(?:of\s+follow-up|after\s+[\p{L}-]+(?:\s+[\p{L}-]+)?|post-?\s*[\p{L}-]+(?:\s+day)?|postpartum))?`,
    "iu",
  ),
  new RegExp(
    String.raw`\b(?:${NUMBER_WORDS})[\s-]*${UNIT}\s+(?:post-?\s*[\p{L}-]+(?:\s+day)?|after\s+[\p{L}-]+|of\s+follow-up|postpartum|follow-up)`,
    "iu",
  ),
  new RegExp(String.raw`\b(?:at\s+)?(?:week|month|day|year)\s+\d+\b`, "i"),
  new RegExp(String.raw`\b(?:${NUMBER_WORDS})[\s-]+${UNIT}\b`, "i"),
  /\b(?:median|mean)\s+(?:follow-up(?:\s+period)?\s+(?:of\s+)?)?\d+(?:[.·]\d+)?\s*(?:days?|weeks?|months?|years?)\b/i,
  /\b(?:end of (?:pregnancy|treatment|intervention|follow-up|study)|long-term|short-term|in-hospital|at discharge|at baseline)\b/i,
];

/**
 * The timepoint of an effect, from the clause that holds it or, failing that, its sentence:
 * ranges ("0-30 days"), "at/after 12 weeks", "week 8", "four weeks post-quit day", "median
 * follow-up of 37.2 months", "end of pregnancy", "long-term". A list read with "respectively"
 * ("at one week, four weeks, and six weeks …, respectively") gives the k-th timepoint to the k-th
 * effect of the sentence. Null when none is stated.
 */
export function timepointOf(
  text: string,
  e: GrammarEffect,
  indexInSentence: number,
  countInSentence: number,
  previousEnd = e.sentence.start,
): string | null {
  const sent = text.slice(e.sentence.start, e.sentence.end);
  const flat = (s: string) => s.replace(/\s+/g, " ").replace(/\?/g, " ").trim();
  if (countInSentence > 1 && /\brespectively\b/i.test(sent)) {
    const list = [...sent.matchAll(new RegExp(String.raw`(?:${NUMBER_WORDS})[\s-]*${UNIT}`, "gi"))].map((m) => m[0]);
    if (list.length === countInSentence) return flat(list[indexInSentence]!);
  }
  // A later effect of a list with its own time ("… at 12 weeks (MD …) and at 26 weeks (MD …)").
  if (indexInSentence > 0 && previousEnd > e.sentence.start) {
    const own = text.slice(Math.min(previousEnd, e.start), e.start);
    for (const re of TIME_PATTERNS) {
      const m = re.exec(own);
      if (m && !/\bper\s*$/i.test(own.slice(0, m.index))) return flat(m[0]);
    }
  }
  // The clause of the effect: from the previous ";" or "(" boundary to the effect's end.
  const rel = e.start - e.sentence.start;
  const clauseStart = Math.max(sent.lastIndexOf(";", rel), sent.lastIndexOf(",", rel - 1) - 60, 0);
  const clause = sent.slice(clauseStart, e.end - e.sentence.start);
  for (const source of [clause, sent]) {
    for (const re of TIME_PATTERNS) {
      const m = re.exec(source);
      if (
        m &&
        !/\bper\s*$/i.test(source.slice(0, m.index)) &&
        !overlapsNumbers(e, e.sentence.start + (source === sent ? 0 : clauseStart) + m.index, m[0].length)
      )
        return flat(m[0]);
    }
  }
  return null;
}

/** True when a match overlaps the effect's own numbers (so "1.2 (0.9 to 1.6)" is no "6 months"). */
function overlapsNumbers(e: GrammarEffect, start: number, length: number): boolean {
  const end = start + length;
  return [e.estimate, e.lower, e.upper].some((v) => v.start < end && start < v.end);
}

const POOLED_CUES =
  /\b(?:pooled|meta-analy[sz](?:is|es|ed)|meta-analytic|summary (?:estimate|effect|rr|or|hr|risk)|combined (?:effect|estimate|analysis|rr|or)|overall (?:effect|estimate|pooled)|random[- ]effects?|fixed[- ]effects?|\d+\s+(?:trials|studies|RCTs|cohorts|comparisons)|[A-Z][a-z]+ (?:trials|studies|RCTs) (?:including|involving|with))|\bI\s*(?:2|²)\s*=|\bfix effect|heterogeneity|when pooled/i;
const SINGLE_STUDY_CUES =
  /\b(?:one (?:included )?(?:RCT|trial|study)|a single (?:RCT|trial|study)|the study (?:by|of)|interrater|inter-rater|intraclass|reliability|kappa)\b/i;

/**
 * True when the effect is the text's own pooled (meta-analytic) result: its sentence speaks of
 * pooling (pooled, meta-analysis, random effects, I², "11 trials", heterogeneity), or the text is
 * a meta-analysis / systematic review and the sentence does not report a single study's result or a
 * reliability statistic. `isReview` comes from the design (title and abstract).
 */
export function isPooledEstimate(text: string, e: GrammarEffect, isReview: boolean): boolean {
  const sent = text.slice(e.sentence.start, e.sentence.end);
  if (SINGLE_STUDY_CUES.test(sent)) return false;
  if (POOLED_CUES.test(sent)) return true;
  return isReview;
}

/** True when a title/abstract describes a meta-analysis or systematic review (with pooling). */
export function looksLikeReview(title: string, text: string): boolean {
  if (/\bmeta-?analys[ie]s\b|\bsystematic review\b|\bpooled analysis\b|\bumbrella review\b/i.test(title)) return true;
  return /\b(?:this|we conducted a|we performed a|a)\s+(?:systematic review and\s+)?meta-?analys[ie]s\b|\bmeta-?analys[ie]s (?:was|were) (?:conducted|performed)\b|\bwe (?:searched|included) [^.]{0,80}\b(?:trials|studies|RCTs)\b|\bpooled (?:relative risks?|odds ratios?|estimates?|RRs?|ORs?|HRs?)\b|\bCochrane\b/i.test(
    text,
  );
}
