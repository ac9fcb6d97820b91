/**
 * Suggestions from a study's text for the RoB 2 signalling questions: the sentences that speak to
 * each question (sequence generation, allocation concealment, blinding of participants, carers and
 * outcome assessors, analysis population, attrition, baseline balance, registration and
 * prespecified plan), with a proposed answer only when the text is explicit. Never an answer by
 * itself: the reviewer confirms every one. Pure and rule-based (regular expressions over
 * sentences); the cues follow the RoB 2 guidance's elaborations and the CONSORT 2010 items 8–11
 * and 13 (Moher et al., BMJ 2010;340:c869).
 */
import type { Rob2Answer, Rob2Variant } from "./rob2";
import { sentenceSpans } from "../extraction/core/index.ts";

/** One sentence that speaks to a question, with its offsets in the text and what matched. */
export interface Rob2Suggestion {
  questionId: string;
  topic: string;
  sentence: string;
  /** Offsets of the sentence in the text given ([start, end)). */
  start: number;
  end: number;
  /** The words that matched. */
  cue: string;
  /** A proposed answer, only when the sentence is explicit. */
  proposed?: Rob2Answer;
  /** Why the answer is proposed (or a fact read from the sentence, e.g. "180 of 200 analysed"). */
  note?: string;
}

interface Rule {
  questionIds: readonly string[];
  topic: string;
  pattern: RegExp;
  proposed?: Rob2Answer;
  note?: string;
  /** Only for this variant (domain 2's questions differ). */
  variant?: Rob2Variant;
  /** Another pattern the sentence must also match (context, e.g. "random"). */
  requires?: RegExp;
}

const RANDOM = "randomi[sz](?:ed|ation)";

/** The rules, most explicit first: the first rule that proposes an answer for a sentence wins. */
const RULES: readonly Rule[] = [
  // 1.1 sequence generation
  {
    questionIds: ["1.1"],
    topic: "sequence generation",
    pattern:
      /computer[- ]generated|random(?:i[sz]ation)?\s+(?:code|list|sequence)s?\s+(?:was|were)\s+generated|blocks?\s+of\s+(?:\d+|two|four|six|eight|ten)/i,
    requires: /\brandom/i,
    proposed: "Y",
    note: "a random component is described",
  },
  {
    questionIds: ["1.1"],
    topic: "sequence generation",
    pattern:
      /computer[- ]generated\s+(?:random|randomi[sz]ation|allocation)|random[- ]number\s+(?:table|generator)|(?:random|randomi[sz]ation)\s+(?:list|sequence|schedule)\s+(?:was\s+)?(?:computer[- ])?generated|permuted\s+blocks?|block\s+randomi[sz]ation|minimi[sz]ation|stratified\s+randomi[sz]ation|coin\s+toss|drawing\s+(?:of\s+)?lots|shuffled\s+(?:cards|envelopes)/i,
    proposed: "Y",
    note: "a random component is described",
  },
  {
    questionIds: ["1.1"],
    topic: "sequence generation",
    pattern:
      /\balternat(?:e|ing|ion)\b[^.]{0,40}\b(?:allocat|assign)|(?:allocat|assign)\w*[^.]{0,40}\b(?:date of birth|day of (?:the )?week|odd or even|odd\/even|hospital (?:record )?number|record number|alternation|admission date)/i,
    proposed: "N",
    note: "the allocation follows a predictable rule",
  },
  {
    questionIds: ["1.1"],
    topic: "sequence generation",
    pattern: new RegExp(`\\b${RANDOM}|\\brandomly\\s+(?:assigned|allocated)`, "i"),
  },
  // 1.2 allocation concealment
  {
    questionIds: ["1.2"],
    topic: "allocation concealment",
    pattern:
      /(?:sealed[^.]{0,30}opaque|opaque[^.]{0,30}sealed)[^.]{0,20}envelopes?|sequentially numbered[^.]{0,40}(?:containers|envelopes|drug (?:packs|containers))|central(?:ly|i[sz]ed)?\s+(?:web-based\s+|telephone\s+|internet\s+)?(?:randomi[sz]ation|allocation)|interactive\s+(?:web|voice)\s+response|(?:web|internet|telephone)[- ]based\s+randomi[sz]ation|pharmacy[- ]controlled\s+(?:randomi[sz]ation|allocation)/i,
    proposed: "Y",
    note: "a concealment method is described",
  },
  {
    questionIds: ["1.2"],
    topic: "allocation concealment",
    pattern:
      /open\s+(?:random\s+)?(?:allocation\s+)?(?:list|schedule|table)|(?:unsealed|transparent|non-opaque)\s+envelopes?/i,
    proposed: "N",
    note: "the allocation could be seen in advance",
  },
  { questionIds: ["1.2"], topic: "allocation concealment", pattern: /conceal(?:ed|ment)|envelopes?/i },
  // 1.3 baseline balance
  {
    questionIds: ["1.3"],
    topic: "baseline balance",
    pattern:
      /baseline\s+(?:characteristics|demographics|variables)[^.]{0,60}\b(?:similar|balanced|comparable|well[- ]matched|did not differ)/i,
    proposed: "N",
    note: "baseline characteristics are reported as similar",
  },
  {
    questionIds: ["1.3"],
    topic: "baseline balance",
    pattern: /\bbaseline\b[^.]{0,60}\b(?:imbalance|differ(?:ed|ences?))|imbalance/i,
  },
  // 2.1 / 2.2 blinding of participants and carers
  {
    questionIds: ["2.1", "2.2"],
    topic: "blinding of participants and carers",
    pattern: /\b(?:double|triple|quadruple)[- ](?:blind|blinded|masked)\b/i,
    proposed: "N",
    note: "participants and those delivering the interventions were blinded",
  },
  {
    questionIds: ["2.1", "2.2"],
    topic: "blinding of participants and carers",
    pattern: /\bopen[- ]label\b|\bunblinded\b|\bnot\s+(?:be\s+)?(?:blinded|masked)\b|\bno\s+blinding\b/i,
    proposed: "Y",
    note: "the trial was open (not blinded)",
  },
  {
    questionIds: ["2.1", "2.2"],
    topic: "blinding of participants and carers",
    pattern: /\bsingle[- ]blind(?:ed)?\b|\bplacebo\b|\bsham\b|\bblind(?:ed|ing)?\b|\bmask(?:ed|ing)\b/i,
  },
  // 2.3–2.5 deviations and adherence
  {
    questionIds: ["2.3", "2.4", "2.5"],
    topic: "deviations and adherence",
    pattern:
      /\bcross(?:ed)?[- ]?over\b|\bcontaminat|\bnon-?adheren|\badheren(?:ce|t)\b|\bcomplian(?:ce|t)\b|\bprotocol\s+(?:deviation|violation)s?|\bdiscontinued\s+(?:the\s+)?(?:study\s+)?(?:drug|treatment|intervention)|\bco-?interventions?\b|\brescue\s+(?:medication|therapy)/i,
  },
  // 2.6 analysis population
  {
    questionIds: ["2.6"],
    topic: "analysis population",
    variant: "assignment",
    pattern:
      /\bintention[- ]to[- ]treat\b|\bITT\b|analy[sz]ed\s+(?:according to|in)\s+(?:the\s+)?(?:group|arm)s?\s+(?:to which|they were)\s+(?:they were\s+)?(?:randomi[sz]ed|assigned|allocated)/i,
    proposed: "Y",
    note: "participants were analysed as randomised",
  },
  {
    questionIds: ["2.6"],
    topic: "analysis population",
    pattern:
      /\bper[- ]protocol\b|\bas[- ]treated\b|\bcomplete[- ]case\b|\bmodified\s+intention|\bmITT\b|\bintention[- ]to[- ]treat\b|\bITT\b/i,
  },
  // 3.1–3.4 missing outcome data
  {
    questionIds: ["3.1"],
    topic: "attrition",
    pattern:
      /\bno\s+(?:participants?|patients?\s+)?(?:were\s+)?lost\s+to\s+follow[- ]up|\bno\s+loss(?:es)?\s+to\s+follow[- ]up|\ball\s+(?:randomi[sz]ed\s+)?(?:participants|patients)\s+(?:completed|were\s+(?:analy[sz]ed|followed\s+up))/i,
    proposed: "Y",
    note: "outcome data for all randomised participants",
  },
  {
    questionIds: ["3.1", "3.2", "3.3", "3.4"],
    topic: "attrition",
    pattern:
      /\blost\s+to\s+follow[- ]up|\bloss(?:es)?\s+to\s+follow[- ]up|\bdrop(?:ped)?[- ]?outs?\b|\bwithdr[ae]w|\bwithdrawals?\b|\bmissing\s+(?:data|outcome)|\bimput(?:ed|ation)|\bsensitivity\s+analys[ie]s|\bcompleted\s+(?:the\s+)?(?:study|trial|follow[- ]up)/i,
  },
  // 4.1–4.5 outcome measurement
  {
    questionIds: ["4.3"],
    topic: "blinding of outcome assessors",
    pattern:
      /(?:outcome\s+)?assessors?\s+(?:were\s+|was\s+)?(?:blinded|masked|unaware)|(?:blinded|masked)\s+(?:outcome\s+)?(?:assessors?|assessment|adjudicat\w+|evaluators?)|(?:adjudicated|assessed)\s+by\s+(?:a\s+)?(?:blinded|masked|independent\s+blinded)/i,
    proposed: "N",
    note: "the outcome assessors were blinded",
  },
  {
    questionIds: ["4.3"],
    topic: "blinding of outcome assessors",
    pattern:
      /(?:outcome\s+)?assessors?\s+(?:were\s+|was\s+)?not\s+(?:blinded|masked)|unblinded\s+(?:outcome\s+)?assess/i,
    proposed: "Y",
    note: "the outcome assessors were not blinded",
  },
  {
    questionIds: ["4.1", "4.2", "4.3"],
    topic: "outcome measurement",
    pattern:
      /\bassessors?\b|\badjudicat|\bvalidated\s+(?:scale|questionnaire|instrument)|\bself-reported\b|\bmeasured\s+(?:by|using|with)\b/i,
  },
  // 5.1–5.3 registration and prespecified plan
  {
    questionIds: ["5.1"],
    topic: "registration and prespecified plan",
    pattern:
      /\bNCT\d{8}\b|\bISRCTN\d+|\bACTRN\d+|\bEudraCT\b|\bChiCTR|\bDRKS\d+|\bCTRI\/|\bregistered\s+(?:at|with|in|on)\b|\btrial\s+registration\b|\bpre-?specified\b|\bstatistical\s+analysis\s+plan\b|\bprotocol\s+(?:was\s+)?published\b/i,
  },
  {
    questionIds: ["5.2", "5.3"],
    topic: "selection of the reported result",
    pattern:
      /\bpost[- ]hoc\b|\bexploratory\s+analys|\bnot\s+pre-?specified\b|\bchanged\s+(?:the\s+)?primary\s+outcome|\badditional\s+analys/i,
  },
];

const COUNT = "(\\d{1,3}(?:,\\d{3})*|\\d+)";
const RANDOMISED_COUNT = new RegExp(
  `${COUNT}\\s+(?:\\w+\\s+){0,2}(?:were\\s+)?(?:randomi[sz]ed|randomly\\s+(?:assigned|allocated))|(?:randomi[sz]ed|randomly\\s+(?:assigned|allocated))\\s+${COUNT}`,
  "i",
);
const ANALYSED_COUNT = new RegExp(
  `${COUNT}\\s+(?:\\w+\\s+){0,2}(?:were\\s+)?(?:included\\s+in\\s+the\\s+(?:final\\s+)?analys[ie]s|analy[sz]ed|completed\\s+(?:the\\s+)?(?:study|trial|follow[- ]up))`,
  "i",
);

/** Randomised and analysed counts read from a sentence ("200 were randomised … 180 were analysed"). */
export function randomisedVsAnalysed(sentence: string): { randomised: number; analysed: number } | null {
  if (!/\d/.test(sentence) || !/random/i.test(sentence)) return null;
  const randomised = RANDOMISED_COUNT.exec(sentence);
  const analysed = ANALYSED_COUNT.exec(sentence);
  if (!randomised || !analysed) return null;
  const num = (s: string | undefined) => Number((s ?? "").replace(/,/g, ""));
  const r = num(randomised[1] ?? randomised[2]);
  const a = num(analysed[1]);
  if (!(r > 0) || !(a >= 0) || a > r) return null;
  return { randomised: r, analysed: a };
}

/** Share of randomised participants analysed at or above which 3.1 is proposed 'Y' (nearly all). */
export const NEARLY_ALL = 0.95;

/** Most suggestions returned per question. */
export const MAX_SUGGESTIONS_PER_QUESTION = 5;

/**
 * The suggestions for every question of the variant, keyed by question id: those with a proposed
 * answer first, then in text order; at most {@link MAX_SUGGESTIONS_PER_QUESTION} each. A sentence
 * matching several rules for one question keeps the first (most explicit) one. Attrition: a
 * sentence giving numbers randomised and analysed proposes 'Y' to 3.1 when at least
 * {@link NEARLY_ALL} of them were analysed, and otherwise states the share without proposing.
 * `sentences` are the text's sentence spans: the document's one list (`documentSentences`) when the
 * caller has the document, by default the core splitter's over the whole text.
 */
export function suggestRob2(
  text: string,
  variant: Rob2Variant,
  sentences: readonly { start: number; end: number }[] = sentenceSpans(text),
): Record<string, Rob2Suggestion[]> {
  const out: Record<string, Rob2Suggestion[]> = {};
  for (const span of sentences) {
    const sentence = text.slice(span.start, span.end);
    const seen = new Set<string>();
    const counts = randomisedVsAnalysed(sentence);
    if (counts) {
      const share = counts.analysed / counts.randomised;
      const suggestion: Rob2Suggestion = {
        questionId: "3.1",
        topic: "attrition",
        sentence,
        start: span.start,
        end: span.end,
        cue: `${counts.analysed} of ${counts.randomised}`,
        note: `${counts.analysed} of ${counts.randomised} randomised were analysed (${(100 * share).toFixed(1)}%)`,
      };
      if (share >= NEARLY_ALL) suggestion.proposed = "Y";
      (out["3.1"] ??= []).push(suggestion);
      seen.add("3.1");
    }
    for (const rule of RULES) {
      if (rule.variant && rule.variant !== variant) continue;
      const match = rule.pattern.exec(sentence);
      if (!match || (rule.requires && !rule.requires.test(sentence))) continue;
      for (const questionId of rule.questionIds) {
        if (seen.has(questionId)) continue;
        seen.add(questionId);
        const suggestion: Rob2Suggestion = {
          questionId,
          topic: rule.topic,
          sentence,
          start: span.start,
          end: span.end,
          cue: match[0],
        };
        if (rule.proposed) {
          suggestion.proposed = rule.proposed;
          if (rule.note) suggestion.note = rule.note;
        }
        (out[questionId] ??= []).push(suggestion);
      }
    }
  }
  for (const id of Object.keys(out)) {
    out[id] = out[id]!.map((s, i) => ({ s, i }))
      .sort((a, b) => Number(b.s.proposed !== undefined) - Number(a.s.proposed !== undefined) || a.i - b.i)
      .slice(0, MAX_SUGGESTIONS_PER_QUESTION)
      .map(({ s }) => s);
  }
  return out;
}
