/**
 * The PRISMA 2020 checklist of a systematic review, filled in from what MetaMind recorded (issue 31):
 * the 27 items with their sub-items (42 rows) and the 12 items of PRISMA 2020 for Abstracts, each
 * with a status — `reported` (the review's records state it, and `text` says what), `not_applicable`
 * (with the reason) or `missing` (and `text` says what to add) — and a methods-section draft built
 * only from recorded facts. Pure: no I/O; the facts come from app/.server/reviews/prisma-checklist.ts.
 *
 * Source: Page MJ, McKenzie JE, Bossuyt PM, et al. The PRISMA 2020 statement: an updated guideline
 * for reporting systematic reviews. BMJ 2021;372:n71 (table 1: checklist; table 2: abstracts), CC BY
 * 4.0. Section and topic names are PRISMA's; the item descriptions here are short paraphrases.
 */
import type { ReviewPrisma, ReviewQuestion } from "./reviews";

export type ChecklistStatus = "reported" | "not_applicable" | "missing";

/** One row of the checklist. */
export interface ChecklistItem {
  /** PRISMA's item number: "1" … "27", with sub-items "10a", "13d", "23c", … */
  item: string;
  section: "Title" | "Abstract" | "Introduction" | "Methods" | "Results" | "Discussion" | "Other information";
  topic: string;
  status: ChecklistStatus;
  /** What the review recorded for the item, the reason it does not apply, or what to add. */
  text: string;
}

/** GET /api/reviews/{id}/prisma-checklist. */
export interface PrismaChecklist {
  items: ChecklistItem[];
  /** PRISMA 2020 for Abstracts (12 items). */
  abstractItems: ChecklistItem[];
  /** A methods-section draft made only of the recorded facts below (no invented sentence). */
  methodsDraft: string;
  counts: Record<ChecklistStatus, number>;
}

/** One batch of records the review imported. */
export interface ChecklistSource {
  kind: "file" | "search" | "uploads";
  /** Database name(s) or file name. */
  name: string;
  /** The search query: searches run from MetaMind, and files marked as saved searches. */
  query: string | null;
  /** ISO time of the import (the date the database was searched, for searches). */
  createdAt: string;
  recordCount: number;
}

/** Everything the checklist is filled from; each part comes from the review's stored rows. */
export interface ChecklistFacts {
  title: string;
  question: ReviewQuestion;
  inclusionCriteria: string[];
  exclusionCriteria: string[];
  sources: ChecklistSource[];
  prisma: ReviewPrisma;
  /** Distinct people who recorded screening decisions, per stage. */
  screeners: { titleAbstract: number; fullText: number };
  /** Whether title/abstract screening used MetaMind's active-learning order (a ranking was computed). */
  prioritisedScreening: boolean;
  /** Cohen's κ between two screeners per stage, when the review has dual screening. */
  agreement?: { titleAbstract?: { kappa: number; n: number } | null; fullText?: { kappa: number; n: number } | null };
  /** The review's extraction outcomes (name, intervention, comparator). */
  outcomes: { name: string; intervention: string; comparator: string }[];
  /** Cells the reviewers corrected in the extraction table, and by how many people. */
  extractionEdits: { cells: number; editors: number };
  /** Studies with a risk-of-bias assessment, when the review records them. */
  riskOfBias?: { tool: string; assessedStudies: number } | null;
  /** Study-level data imported from CSV files into the outcomes (review_study_data), when any. */
  importedData?: { studies: number; outcomes: number; files: string[] } | null;
  /** The living review's schedule (weekly / monthly), when it has one. */
  livingSchedule?: string | null;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-GB")} ${n === 1 ? one : many}`;

/** "A, B and C". */
function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

const day = (iso: string) => iso.slice(0, 10);

function reviewers(n: number): string {
  if (n === 0) return "no reviewer yet";
  if (n === 1) return "one reviewer";
  if (n === 2) return "two reviewers";
  return `${n} reviewers`;
}

function picoText(q: ReviewQuestion): string | null {
  const parts = [
    q.population ? `population: ${q.population}` : null,
    q.intervention ? `intervention: ${q.intervention}` : null,
    q.comparator ? `comparator: ${q.comparator}` : null,
    q.outcomes ? `outcomes: ${q.outcomes}` : null,
  ].filter((p): p is string => p !== null);
  return parts.length ? parts.join("; ") : null;
}

type Row = Omit<ChecklistItem, "section">;

function section(name: ChecklistItem["section"], rows: Row[]): ChecklistItem[] {
  return rows.map((r) => ({ ...r, section: name }));
}

const missing = (item: string, topic: string, text: string): Row => ({ item, topic, status: "missing", text });
const reported = (item: string, topic: string, text: string): Row => ({ item, topic, status: "reported", text });

/** The sentence on study data imported from CSV (items 9 and the methods draft), or null when none was. */
function importedText(f: ChecklistFacts): string | null {
  const d = f.importedData;
  if (!d || d.studies === 0) return null;
  const files = d.files.length ? ` (${list(d.files.map((n) => `the file ${n}`))})` : "";
  return `Study-level data for ${plural(d.studies, "study", "studies")} in ${plural(d.outcomes, "outcome")} were imported from CSV${files} instead of being read from the reports.`;
}

/** The sentence on the living review's updates (methods draft), or null before the first update. */
function livingText(f: ChecklistFacts): string | null {
  const u = f.prisma.updated;
  if (!u || u.updates === 0) return null;
  return `The searches were re-run ${u.updates === 1 ? "once" : `${plural(u.updates, "time")}`} as a living review${f.livingSchedule ? ` (scheduled ${f.livingSchedule})` : ""}${u.lastUpdateAt ? `, most recently on ${day(u.lastUpdateAt)}` : ""}; records they found were de-duplicated against the review's records (DOI, PMID, then title and year).`;
}

/** Sentences on how records were screened and selected (item 8), or null before any decision. */
function selectionText(f: ChecklistFacts): string | null {
  if (f.prisma.screened === 0) return null;
  const ta = f.agreement?.titleAbstract;
  const parts = [
    `Titles and abstracts of ${plural(f.prisma.screened, "record")} were screened by ${reviewers(f.screeners.titleAbstract)}${f.screeners.titleAbstract >= 2 ? " independently" : ""}${ta ? ` (Cohen's κ = ${ta.kappa.toFixed(2)} on ${plural(ta.n, "record")} both screened)` : ""}.`,
  ];
  if (f.prioritisedScreening) {
    parts.push(
      "Records were screened in the order of MetaMind's active-learning ranking (TF-IDF features, Naive Bayes, retrained after every decision); the ranking only ordered the records, every decision was a reviewer's.",
    );
  }
  if (f.prisma.soughtForRetrieval > 0) {
    const ft = f.agreement?.fullText;
    parts.push(
      `Full texts of ${plural(f.prisma.soughtForRetrieval, "report")} were sought and assessed by ${reviewers(f.screeners.fullText)}${ft ? ` (Cohen's κ = ${ft.kappa.toFixed(2)})` : ""}.`,
    );
  }
  return parts.join(" ");
}

function sourcesText(f: ChecklistFacts): {
  databases: string | null;
  strategies: string | null;
  filesWithoutQuery: string[];
} {
  const searches = f.sources.filter((s) => s.kind === "search");
  const files = f.sources.filter((s) => s.kind === "file");
  const uploads = f.sources.filter((s) => s.kind === "uploads");
  const pieces: string[] = [];
  for (const s of searches) pieces.push(`${s.name} (searched ${day(s.createdAt)}, ${plural(s.recordCount, "record")})`);
  for (const s of files)
    pieces.push(`the file ${s.name} (imported ${day(s.createdAt)}, ${plural(s.recordCount, "record")})`);
  for (const s of uploads) pieces.push(`uploaded full texts (${day(s.createdAt)}, ${plural(s.recordCount, "report")})`);
  // A file marked as a saved search carries the query that produced it.
  const strategies = [...searches, ...files]
    .filter((s) => s.query)
    .map((s) => `${s.name}: "${s.query}" (${day(s.createdAt)})`);
  return {
    databases: pieces.length ? `Records came from ${list(pieces)}.` : null,
    strategies: strategies.length ? `Search strategies as run: ${strategies.join("; ")}.` : null,
    filesWithoutQuery: files.filter((s) => !s.query).map((s) => s.name),
  };
}

/**
 * The checklist of one review.
 *
 * @param facts what the review recorded (see ChecklistFacts).
 * @returns 42 items in PRISMA's order, the 12 abstract items, the methods draft and the counts per status.
 */
export function buildPrismaChecklist(facts: ChecklistFacts): PrismaChecklist {
  const f = facts;
  const p = f.prisma;
  const identified = Object.values(p.identified).reduce((s, n) => s + n, 0);
  const src = sourcesText(f);
  const selection = selectionText(f);
  const pico = picoText(f.question);
  const outcomeNames = f.outcomes.map((o) => o.name);
  const comparisons = [...new Set(f.outcomes.map((o) => `${o.intervention} vs ${o.comparator}`))];
  const hasSynthesis = f.outcomes.length > 0 && p.included >= 2;
  const noSynthesisReason =
    f.outcomes.length === 0
      ? "no outcome has been set up for data extraction"
      : `only ${plural(p.included, "study", "studies")} ${p.included === 1 ? "is" : "are"} included`;
  const rob = f.riskOfBias && f.riskOfBias.assessedStudies > 0 ? f.riskOfBias : null;
  const ftReasons = Object.entries(p.excludedWithReasons).map(([reason, n]) => `${reason} (${n})`);

  const items: ChecklistItem[] = [
    ...section("Title", [
      /\bsystematic review|meta-analys[ie]s\b/i.test(f.title)
        ? reported("1", "Title", `The title "${f.title}" names the report as a systematic review or meta-analysis.`)
        : missing(
            "1",
            "Title",
            `Name the report as a systematic review (and meta-analysis, if one is done) in its title; the review is called "${f.title}".`,
          ),
    ]),
    ...section("Abstract", [
      missing(
        "2",
        "Abstract",
        "Write a structured abstract that follows the PRISMA 2020 for Abstracts checklist (below).",
      ),
    ]),
    ...section("Introduction", [
      missing(
        "3",
        "Rationale",
        "Describe the rationale for the review in the context of existing knowledge: MetaMind does not record it.",
      ),
      f.question.text || pico
        ? reported("4", "Objectives", `Objective as recorded: ${[f.question.text, pico].filter(Boolean).join(" — ")}.`)
        : missing(
            "4",
            "Objectives",
            "State the review question (population, intervention, comparator, outcomes) in the review's settings.",
          ),
    ]),
    ...section("Methods", [
      f.inclusionCriteria.length || f.exclusionCriteria.length
        ? reported(
            "5",
            "Eligibility criteria",
            [
              f.inclusionCriteria.length ? `Inclusion: ${f.inclusionCriteria.join("; ")}.` : "",
              f.exclusionCriteria.length ? `Exclusion: ${f.exclusionCriteria.join("; ")}.` : "",
            ]
              .filter(Boolean)
              .join(" ") + " Add how studies were grouped for the syntheses.",
          )
        : missing("5", "Eligibility criteria", "Record the inclusion and exclusion criteria in the review's settings."),
      src.databases
        ? reported(
            "6",
            "Information sources",
            `${src.databases} Add any registers, websites, reference lists or contacts also consulted.`,
          )
        : missing(
            "6",
            "Information sources",
            "Import records from a search or a file: no information source is recorded yet.",
          ),
      src.strategies && src.filesWithoutQuery.length === 0
        ? reported("7", "Search strategy", src.strategies)
        : missing(
            "7",
            "Search strategy",
            [
              src.strategies,
              src.filesWithoutQuery.length
                ? `Give the full search strategy behind ${list(src.filesWithoutQuery)}, with filters and limits.`
                : "Give the full search strategy of every database, with filters and limits.",
            ]
              .filter(Boolean)
              .join(" "),
          ),
      selection
        ? reported("8", "Selection process", selection)
        : missing("8", "Selection process", "Screen the records: no screening decision is recorded yet."),
      f.outcomes.length
        ? reported(
            "9",
            "Data collection process",
            `Arm-level data (events and group sizes, or means, SDs and group sizes) were read from each included study's best available text by MetaMind's rule-based extraction, each value with its quote, and checked by the reviewers${f.extractionEdits.cells ? `, who corrected ${plural(f.extractionEdits.cells, "value")} (${plural(f.extractionEdits.editors, "person", "people")})` : ""}.${importedText(f) ? ` ${importedText(f)}` : ""} Add whether study investigators were contacted.`,
          )
        : missing(
            "9",
            "Data collection process",
            "Set up the outcomes to extract in the Data extraction tab; no data collection is recorded yet.",
          ),
      f.outcomes.length
        ? reported(
            "10a",
            "Data items: outcomes",
            `Outcomes extracted: ${list(outcomeNames)} (${list(comparisons)}). Add the time points and which results were sought.`,
          )
        : missing("10a", "Data items: outcomes", "List the outcomes for which data were sought."),
      missing(
        "10b",
        "Data items: other variables",
        "List the other variables sought (participant and intervention characteristics, funding) and any assumptions about missing or unclear information.",
      ),
      rob
        ? reported(
            "11",
            "Study risk of bias assessment",
            `Risk of bias was assessed with ${rob.tool} for ${plural(rob.assessedStudies, "study", "studies")}. Add how many reviewers assessed each study, independently or not.`,
          )
        : missing(
            "11",
            "Study risk of bias assessment",
            "Assess each included study's risk of bias (e.g. RoB 2 for randomised trials) and say how many reviewers did it.",
          ),
      f.outcomes.length
        ? reported(
            "12",
            "Effect measures",
            "Risk ratio, odds ratio or risk difference for binary outcomes; mean difference or standardised mean difference (Hedges' g) for continuous outcomes, chosen per outcome in the Analysis tab. State the measure used for each outcome.",
          )
        : missing(
            "12",
            "Effect measures",
            "Choose the effect measure of each outcome (e.g. risk ratio, mean difference).",
          ),
      hasSynthesis
        ? reported(
            "13a",
            "Synthesis methods: eligibility for each synthesis",
            `Studies included at full text enter the synthesis of each outcome (${list(outcomeNames)}) for which they report usable data; MetaMind lists the studies left out of each and why.`,
          )
        : {
            item: "13a",
            topic: "Synthesis methods: eligibility for each synthesis",
            status: "not_applicable",
            text: `No synthesis yet: ${noSynthesisReason}.`,
          },
      hasSynthesis
        ? reported(
            "13b",
            "Synthesis methods: preparing the data",
            "Effect sizes were computed with escalc as in metafor: 0.5 added to every cell of a 2×2 table with a zero cell; a reported estimate with its 95% CI used only for a study without complete arm data. Add any other conversion of summary statistics.",
          )
        : {
            item: "13b",
            topic: "Synthesis methods: preparing the data",
            status: "not_applicable",
            text: `No synthesis yet: ${noSynthesisReason}.`,
          },
      hasSynthesis
        ? reported(
            "13c",
            "Synthesis methods: tabulation and display",
            "Each study's data and effect size are tabulated per outcome and shown in a forest plot with the pooled estimate.",
          )
        : {
            item: "13c",
            topic: "Synthesis methods: tabulation and display",
            status: "not_applicable",
            text: `No synthesis yet: ${noSynthesisReason}.`,
          },
      hasSynthesis
        ? reported(
            "13d",
            "Synthesis methods: statistical synthesis",
            "Random-effects meta-analysis with MetaMind's metafor-exact engine; REML estimate of τ² with the Hartung–Knapp adjustment by default, with I² and the prediction interval. State the model and software version you report.",
          )
        : {
            item: "13d",
            topic: "Synthesis methods: statistical synthesis",
            status: "not_applicable",
            text: `No synthesis yet: ${noSynthesisReason}.`,
          },
      missing(
        "13e",
        "Synthesis methods: causes of heterogeneity",
        "Describe any subgroup analysis or meta-regression done to explore heterogeneity, or say none was done.",
      ),
      missing(
        "13f",
        "Synthesis methods: sensitivity analyses",
        "Describe any sensitivity analysis (e.g. leave-one-out, excluding high risk of bias studies), or say none was done.",
      ),
      missing(
        "14",
        "Reporting bias assessment",
        "Describe how the risk of bias due to missing results was assessed (e.g. funnel plot and Egger's test with 10 or more studies).",
      ),
      missing(
        "15",
        "Certainty assessment",
        "Describe how certainty in each body of evidence was assessed (e.g. GRADE).",
      ),
    ]),
    ...section("Results", [
      p.screened > 0
        ? reported(
            "16a",
            "Study selection",
            `${plural(identified, "record")} identified, ${plural(p.duplicatesRemoved, "duplicate")} removed, ${plural(p.screened, "record")} screened, ${p.excluded.toLocaleString("en-GB")} excluded; ${plural(p.soughtForRetrieval, "report")} sought for retrieval, ${p.notRetrieved.toLocaleString("en-GB")} not retrieved, ${p.assessed.toLocaleString("en-GB")} assessed for eligibility; ${plural(p.included, "study", "studies")} included. The PRISMA flow diagram shows the same counts.`,
          )
        : missing("16a", "Study selection", "Screen the records: the flow diagram has no screening counts yet."),
      ftReasons.length
        ? reported(
            "16b",
            "Study selection: excluded studies",
            `Reports excluded at full text, with reasons: ${list(ftReasons)}. Cite the studies that seemed to meet the criteria but were excluded, and why.`,
          )
        : p.assessed > 0
          ? {
              item: "16b",
              topic: "Study selection: excluded studies",
              status: "not_applicable",
              text: "No report was excluded at full text.",
            }
          : missing(
              "16b",
              "Study selection: excluded studies",
              "Assess full texts: cite studies that seemed to meet the criteria but were excluded, and why.",
            ),
      missing(
        "17",
        "Study characteristics",
        "Cite each included study and present its characteristics (design, participants, interventions, follow-up).",
      ),
      rob
        ? reported(
            "18",
            "Risk of bias in studies",
            `Risk-of-bias judgements are recorded for ${plural(rob.assessedStudies, "study", "studies")}; present them (traffic-light plot or table).`,
          )
        : missing("18", "Risk of bias in studies", "Present the risk-of-bias assessment of each included study."),
      hasSynthesis
        ? reported(
            "19",
            "Results of individual studies",
            "Each study's summary statistics per group and its effect estimate with 95% CI are in the extraction table and the forest plot of each outcome.",
          )
        : {
            item: "19",
            topic: "Results of individual studies",
            status: "not_applicable",
            text: `No results to present yet: ${noSynthesisReason}.`,
          },
      missing(
        "20a",
        "Results of syntheses: characteristics and risk of bias",
        "Summarise the characteristics and risk of bias of the studies in each synthesis.",
      ),
      hasSynthesis
        ? reported(
            "20b",
            "Results of syntheses: statistical syntheses",
            "The pooled estimate with its 95% CI, τ², I² and the prediction interval are shown per outcome in the Analysis tab. Report them with the direction of the effect.",
          )
        : {
            item: "20b",
            topic: "Results of syntheses: statistical syntheses",
            status: "not_applicable",
            text: `No synthesis yet: ${noSynthesisReason}.`,
          },
      missing(
        "20c",
        "Results of syntheses: investigations of heterogeneity",
        "Present the results of any investigation of possible causes of heterogeneity.",
      ),
      missing("20d", "Results of syntheses: sensitivity analyses", "Present the results of any sensitivity analysis."),
      missing(
        "21",
        "Reporting biases",
        "Present the assessment of the risk of bias due to missing results for each synthesis.",
      ),
      missing(
        "22",
        "Certainty of evidence",
        "Present the certainty (or confidence) in the body of evidence for each outcome, e.g. a Summary of Findings table.",
      ),
    ]),
    ...section("Discussion", [
      missing(
        "23a",
        "Discussion: interpretation",
        "Give a general interpretation of the results in the context of other evidence.",
      ),
      missing(
        "23b",
        "Discussion: limitations of the evidence",
        "Discuss the limitations of the evidence included in the review.",
      ),
      missing(
        "23c",
        "Discussion: limitations of the review processes",
        `Discuss the limitations of the review processes${f.screeners.titleAbstract === 1 ? " (for example, screening by one reviewer)" : ""}.`,
      ),
      missing("23d", "Discussion: implications", "Discuss the implications for practice, policy and future research."),
    ]),
    ...section("Other information", [
      missing(
        "24a",
        "Registration",
        "Give the review's registration (e.g. PROSPERO number), or say it was not registered.",
      ),
      missing("24b", "Protocol", "Say where the protocol can be found, or that none was prepared."),
      missing("24c", "Amendments", "Describe any amendment to the registration or protocol."),
      missing("25", "Support", "Describe the sources of financial or non-financial support and the funders' role."),
      missing("26", "Competing interests", "Declare the review authors' competing interests."),
      missing(
        "27",
        "Availability of data, code and other materials",
        "Say where the data and code can be found. MetaMind exports the records and decisions (JSON, CSV, RIS), the PRISMA diagram (SVG) and, for each meta-analysis, the study data (CSV) and an R script that reproduces it with metafor.",
      ),
    ]),
  ];

  const byItem = new Map(items.map((i) => [i.item, i]));
  const from = (
    item: string,
    abstractItem: string,
    topic: string,
    section: ChecklistItem["section"] = "Abstract",
  ): ChecklistItem => {
    const source = byItem.get(item)!;
    return {
      item: abstractItem,
      section,
      topic,
      status: source.status,
      text: source.status === "reported" ? `In the abstract: ${source.text}` : source.text,
    };
  };
  const abstractItems: ChecklistItem[] = [
    { ...from("1", "1", "Title"), section: "Title" },
    from("4", "2", "Objectives"),
    from("5", "3", "Eligibility criteria"),
    from("6", "4", "Information sources"),
    from("11", "5", "Risk of bias"),
    from("13d", "6", "Synthesis of results"),
    from("16a", "7", "Included studies"),
    from("20b", "8", "Synthesis of results"),
    {
      item: "9",
      section: "Discussion",
      topic: "Limitations of evidence",
      status: "missing",
      text: "Summarise the limitations of the evidence (risk of bias, inconsistency, imprecision).",
    },
    {
      item: "10",
      section: "Discussion",
      topic: "Interpretation",
      status: "missing",
      text: "Give a general interpretation of the results and their implications.",
    },
    {
      item: "11",
      section: "Other information",
      topic: "Funding",
      status: "missing",
      text: "Name the primary source of funding.",
    },
    {
      item: "12",
      section: "Other information",
      topic: "Registration",
      status: "missing",
      text: "Give the registration name and number.",
    },
  ];

  const methods = [
    f.inclusionCriteria.length
      ? `Studies were eligible if they met these criteria: ${f.inclusionCriteria.join("; ")}.`
      : null,
    f.exclusionCriteria.length ? `Studies were excluded for: ${f.exclusionCriteria.join("; ")}.` : null,
    src.databases,
    src.strategies,
    livingText(f),
    selection,
    importedText(f),
    byItem.get("9")!.status === "reported"
      ? `Arm-level data were read from each included study's best available text with MetaMind's rule-based extraction, every value with its quote, and checked by the reviewers.`
      : null,
    hasSynthesis ? byItem.get("13d")!.text.replace(" State the model and software version you report.", "") : null,
  ].filter((s): s is string => Boolean(s));
  const counts: Record<ChecklistStatus, number> = { reported: 0, not_applicable: 0, missing: 0 };
  for (const i of items) counts[i.status] += 1;
  return { items, abstractItems, methodsDraft: methods.join(" "), counts };
}
