/**
 * Pre-fills the built-in characteristics of an included study from its text, by rules only (no
 * model): a value is given only with the verbatim passage it was read from (`text.includes(quote)`),
 * otherwise the cell stays blank for the reviewer. Design, N randomised and follow-up come from the
 * study-facts extraction (app/lib/extraction/facts.ts); country, setting, population, the arms,
 * funding and conflicts of interest from the sentences below. Pure.
 */
import type { PrefilledValue } from "~/lib/characteristics";
import type { StudyDocument } from "~/lib/extraction/core";
import { DESIGN_LABELS } from "~/lib/extraction/facts";
import { studyFacts } from "../extraction/service";

const COUNTRIES = [
  "Argentina",
  "Australia",
  "Austria",
  "Bangladesh",
  "Belgium",
  "Brazil",
  "Bulgaria",
  "Cameroon",
  "Canada",
  "Chile",
  "China",
  "Colombia",
  "Croatia",
  "Czech Republic",
  "Denmark",
  "Egypt",
  "Estonia",
  "Ethiopia",
  "Finland",
  "France",
  "Germany",
  "Ghana",
  "Greece",
  "Hong Kong",
  "Hungary",
  "India",
  "Indonesia",
  "Iran",
  "Ireland",
  "Israel",
  "Italy",
  "Japan",
  "Jordan",
  "Kenya",
  "Korea",
  "Lebanon",
  "Malawi",
  "Malaysia",
  "Mexico",
  "Morocco",
  "Mozambique",
  "Nepal",
  "Netherlands",
  "New Zealand",
  "Nigeria",
  "Norway",
  "Pakistan",
  "Peru",
  "Philippines",
  "Poland",
  "Portugal",
  "Romania",
  "Russia",
  "Rwanda",
  "Saudi Arabia",
  "Scotland",
  "Serbia",
  "Singapore",
  "Slovenia",
  "South Africa",
  "Spain",
  "Sri Lanka",
  "Sweden",
  "Switzerland",
  "Taiwan",
  "Tanzania",
  "Thailand",
  "the Netherlands",
  "Tunisia",
  "Turkey",
  "Uganda",
  "UK",
  "United Kingdom",
  "United States",
  "USA",
  "Vietnam",
  "Wales",
  "England",
  "Zambia",
  "Zimbabwe",
];
const CANONICAL: Record<string, string> = {
  "the Netherlands": "Netherlands",
  UK: "United Kingdom",
  USA: "United States",
};
const COUNTRY = new RegExp(`\\b(${COUNTRIES.map((c) => c.replace(/ /g, "\\s+")).join("|")})\\b`, "g");
/** A sentence that places the study (rather than citing other work). */
const PLACE_CUE =
  /\b(?:conducted|carried out|performed|recruited|enrolled|hospitals?|centres?|centers?|sites?|clinics?|practices|in|from|across|setting)\b/i;

const SETTINGS: { label: string; pattern: RegExp }[] = [
  { label: "Intensive care", pattern: /\b(?:intensive care units?|ICUs?|critical care)\b/ },
  { label: "Emergency department", pattern: /\bemergency (?:departments?|rooms?)\b/i },
  { label: "Primary care", pattern: /\b(?:primary care|general practices?|family practices?)\b/i },
  { label: "Nursing home", pattern: /\b(?:nursing homes?|care homes?|long-term care facilit(?:y|ies))\b/i },
  { label: "Outpatient", pattern: /\b(?:outpatients?|out-patients?|ambulatory)\b/i },
  { label: "Inpatient", pattern: /\b(?:inpatients?|in-patients?|hospitali[sz]ed|admitted to hospital)\b/i },
  { label: "Community", pattern: /\bcommunity[- ](?:based|dwelling|settings?|centres?|centers?)\b/i },
  { label: "School", pattern: /\bschools?\b/i },
  {
    label: "Hospital",
    pattern: /\b(?:hospitals?|tertiary (?:care )?cent(?:re|er)s?|university medical cent(?:re|er)s?)\b/i,
  },
];

const POPULATION =
  /\b(?:adults?|patients?|children|women|men|participants|infants|neonates|adolescents|people|individuals|subjects|volunteers|smokers|pregnant women|older adults)\s+(?:aged\s+[^,.;()]{1,40}|with\s+[^,.;()]{1,60}|who\s+[^,.;()]{1,60}|undergoing\s+[^,.;()]{1,60})/i;

const ARMS =
  /\b(?:randomi[sz]ed|randomly\s+(?:assigned|allocated)|allocated|assigned)\b[^.;]{0,60}?\bto\s+(?:receive\s+)?(?:either\s+)?([^;]{2,80}?)\s+(?:or|versus|vs\.?|compared\s+with)\s+([^;]{2,80}?)(?=\s*(?:[.;,]|$|\s+for\s|\s+in\s|\s+during\s|\s+at\s))/i;
const TITLE_ARMS =
  /^\s*(.{2,80}?)\s+(?:versus|vs\.?|compared\s+with)\s+(.{2,80}?)(?=\s*(?:[:.;,(]|$|\s+(?:in|for|among|on)\s))/i;

const FUNDING =
  /\b(?:funded|supported|sponsored|financed)\s+by\b|\bfunding\b|\bgrants?\s+(?:from|no\.?|number)\b|\bno\s+(?:external\s+)?funding\b/i;
const CONFLICTS =
  /\b(?:conflicts?\s+of\s+interests?|competing\s+interests?|declare[sd]?\s+(?:that\s+)?(?:they\s+have\s+)?no\b|disclosures?\b|received\s+(?:personal\s+)?(?:fees|honoraria)\b)/i;

/** Removes "(n = 100)" and similar counts after an arm's name; keeps the passage otherwise as written. */
function armName(raw: string): string {
  return raw
    .replace(/\s*\((?:n\s*=|[0-9]+\s*(?:patients|participants)?\)|[^)]*\bper group)[^)]*\)?/gi, "")
    .replace(/^(?:the|a|an)\s+/i, "")
    .replace(/\s+(?:group|arm)$/i, "")
    .trim();
}

/**
 * The built-in characteristics the rules find in a record's document (the extraction service's
 * `recordDocument`; its title part, when it has one, first). The facts and the sentences come from the
 * service's `studyFacts`, over the document's one sentence list. Keys are those of BUILT_IN_COLUMNS; a
 * key is absent when nothing was found. Each value's quote is a verbatim substring of the document's text.
 */
export function prefillCharacteristics(document: StudyDocument): Record<string, PrefilledValue> {
  const title = document.title;
  const out: Record<string, PrefilledValue> = {};
  const facts = studyFacts(document);

  if (facts.design) {
    const mention = facts.designMentions
      .filter((m) => m.design === facts.design)
      .sort((a, b) => b.weight - a.weight)[0];
    if (mention)
      out.design = { value: facts.design === "rct" ? "RCT" : DESIGN_LABELS[facts.design].one, quote: mention.quote };
  }
  // The sentence around a number, so the quote shows what was counted.
  const sentenceOf = (q: { quote: string; sentenceIndex: number }) =>
    facts.sentences[q.sentenceIndex]?.text.trim() || q.quote;
  const randomised = facts.sampleSizes.find((s) => s.cue === "randomised");
  if (randomised) out.randomised = { value: String(randomised.value), quote: sentenceOf(randomised) };
  const followUp = facts.followUps.find((f) => f.kind === "follow-up") ?? facts.followUps[0];
  if (followUp)
    out.followUp = {
      value: `${followUp.value} ${followUp.unit}${followUp.value === 1 ? "" : "s"}`,
      quote: sentenceOf(followUp),
    };

  const sentences = facts.sentences;
  for (const s of sentences) {
    if (out.country) break;
    if (!PLACE_CUE.test(s.text) || /\bet al\b/.test(s.text)) continue;
    const found = [...s.text.matchAll(COUNTRY)].map((m) => m[1]!.replace(/\s+/g, " "));
    if (found.length === 0) continue;
    const names = [...new Set(found.map((c) => CANONICAL[c] ?? c))];
    out.country = { value: names.length > 3 ? "Multinational" : names.join(", "), quote: s.text };
  }
  for (const { label, pattern } of SETTINGS) {
    const s = sentences.find((x) => pattern.test(x.text));
    const m = s ? pattern.exec(s.text) : null;
    if (m) {
      out.setting = { value: label, quote: m[0] };
      break;
    }
  }
  for (const s of sentences) {
    const m = POPULATION.exec(s.text);
    if (m) {
      const phrase = m[0].split(/\s+(?:to|were|was|in|at|and|from|into)\s/)[0]!.trim();
      out.population = { value: phrase, quote: phrase };
      break;
    }
  }
  const arms =
    sentences.map((s) => ARMS.exec(s.text)).find((m) => m !== null) ?? (title ? TITLE_ARMS.exec(title) : null);
  if (arms) {
    const intervention = armName(arms[1]!);
    const comparator = armName(arms[2]!);
    if (intervention && comparator) {
      out.intervention = { value: intervention, quote: arms[0].trim() };
      out.comparator = { value: comparator, quote: arms[0].trim() };
    }
  }
  const funding =
    sentences.find((s) => FUNDING.test(s.text) && !CONFLICTS.test(s.text)) ??
    sentences.find((s) => FUNDING.test(s.text));
  if (funding) out.funding = { value: funding.text.trim().slice(0, 300), quote: funding.text.trim() };
  const conflicts = sentences.find((s) => CONFLICTS.test(s.text));
  if (conflicts) out.conflicts = { value: conflicts.text.trim().slice(0, 300), quote: conflicts.text.trim() };
  return out;
}
