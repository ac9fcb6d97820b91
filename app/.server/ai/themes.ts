/**
 * Common themes of a set of studies as phrases (issue 16): the outcomes, interventions and
 * exposures the studies share ("smoking cessation", "coffee consumption", "frailty"), never bare
 * filler words. Pure: plain sentences in, ranked phrases out.
 *
 * Method (keyphrase extraction in the manner of RAKE, Rose et al. 2010): each sentence is split
 * into candidate phrases at stop words, generic research words, numbers and punctuation; every
 * run of 1–3 adjacent content words of a candidate is a phrase (plurals folded). A phrase gets a
 * role from the words around it — "risk of X", "X incidence", "the primary outcome was X" make
 * it an outcome; "randomised to X", "effect of X on", "X versus", "X consumption" an
 * intervention or exposure — and from the outcome phrases and intervention sentences the
 * caller's rule-based extraction found; a phrase ending in an outcome word ("… cessation",
 * "… cancer") or an exposure word ("… consumption", "… training") has that role itself. Phrases
 * are ranked by how many studies use them, then whether they have a role, then length (a phrase
 * beats a word), then frequency.
 */

/** Words that are too general to be, or to start or end, a theme of a set of studies. */
export const THEME_STOPWORDS = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below between both but by can could did do does doing down during each either few for from further had has have having he her here hers him his how however i if in into is it its itself just may me might more most must my no nor not now of off on once only or other our ours out over own same she should so some such than that the their theirs them then there these they this those through thus to too under until up upon very via was we were what when where whether which while who whom why will with within without would yet you your et al " +
    "hazard odds ratio ratios interval intervals confidence difference differences mean median clinical clinically therapy therapies treatment treatments treated efficacy effective controlled randomized randomised randomly assigned placebo period primary secondary composite prespecified follow-up significance statistically compared control controls cohort cohorts sample population adults people individuals subjects cases measures measured assessed evaluated investigated examined conducted performed reported observed identified aimed aim aims objective objectives " +
    "study studies patient patients participant participants result results method methods conclusion conclusions background purpose analysis analyses data group groups significant significantly associated association associations effect effects comparison including included include total using used use based among years year months month weeks week days day hours hour minutes minute higher lower increased increase decreased decrease reduced reduction reductions risk risks rate rates level levels number numbers outcome outcomes factors factor review trial trials evidence research found showed show shows suggest suggests well new two three four five one first second third overall present current respectively time times vs versus per " +
    "plus alone less least much many several various whereas although though since thereby therefore hence moreover furthermore like given due according across toward towards around almost nearly approximately about only every whole part parts kind type types way ways case use uses useful potential possible likely unlikely important importance related relation relationship role roles impact impacts need needs able available value values status high low large small long short early late recent previous prior current future new novel main major minor common general specific different similar other others another additional further greater smaller larger best better worse good poor mg kg ml daily weekly monthly annual dose doses mmhg bmi-adjusted p-value pubmed embase cochrane medline database databases search searched meta-analysis meta-analyses systematic publication published eligible random-effects fixed-effects model models adjusted unadjusted multivariable univariate intervention interventions program programme programs"
  ).split(" "),
);

/** Abbreviations of statistics and places, never themes ("CI", "RR", "USA"). */
const STATISTIC_ACRONYMS = new Set(
  "ci cis rr rrs or ors hr hrs irr md smd wmd rd sd sds se iqr nnt nnh auc roc ppv npv i2 i² df us usa uk eu who rct rcts".split(
    " ",
  ),
);

/** Roles a theme can have in the studies. */
export type ThemeRole = "outcome" | "intervention";

/** One study as the theme finder reads it. */
export interface ThemeStudy {
  /** 1-based position in the set ("Study 1"). */
  number: number;
  /** Its sentences in order (the title first when the caller includes it). */
  sentences: readonly string[];
  /** Outcome phrases found by rule-based extraction (e.g. "a recurrence of venous thromboembolism"). */
  outcomes?: readonly string[];
  /** Indexes into `sentences` of the sentences that describe the intervention or exposure. */
  interventionSentences?: ReadonlySet<number>;
}

/** A theme: a phrase, its role, and where the studies use it. */
export interface ThemePhrase {
  /** Folded key ("smoking cessation"). */
  key: string;
  /** The phrase as the studies most often write it (lower case unless an acronym). */
  phrase: string;
  words: number;
  role: ThemeRole | null;
  /** study number → index of the first sentence that uses the phrase. */
  studies: Map<number, number>;
  /** Uses across all studies. */
  count: number;
}

/** Most themes returned. */
export const MAX_THEMES = 5;
/** Longest phrase, in words. */
const MAX_PHRASE_WORDS = 3;

const OUTCOME_BEFORE =
  /(?:\brisks? of|\bincidence of|\brates? of|\bodds of|\bprevalence of|\boccurrence of|\bdevelopment of|\bonset of|\bprogression of|\brecurrence of|\bhospitali[sz]ations? for|\bdeaths? from|\bmortality from|\bchanges? in|\breduc\w* in|\bincreas\w* in|\bimprov\w* in|\beffects? on|\bimpact on|\bassociated with (?:an? )?(?:lower|higher|reduced|increased|decreased|greater|less)?\s*(?:risk of )?|\bprevent\w*|\boutcomes? (?:was|were|is|are)|\bpredict\w*|\bslowed|\bworsened|\breduced|\bimproved|\b(?:lower|higher|less|more|greater)\b)\s+(?:the\s+|a\s+|an\s+)?$/i;
const OUTCOME_AFTER =
  /^\s+(?:risk|rates?|incidence|prevalence|scores?|events?|mortality|symptoms|outcomes?|index|levels?|recurrence|remission|abstinence|severity|progression|rose|fell|declined|improved|worsened)\b/i;
const INTERVENTION_BEFORE =
  /(?:\beffects? of|\brandomi[sz]ed to|\bassigned\b[^.;]{0,60}?\bto|\ballocated to|\breceiv\w+|\btreated with|\btreatment with|\bexposure to|\bexposed to|\bintake of|\bconsumption of|\buse of|\bsupplementation with|\bcompared (?:with|to)|\bversus|\bvs\.?|\bplus|\bwith or without)\s+(?:the\s+|a\s+|an\s+)?$/i;
const INTERVENTION_AFTER =
  /^\s+(?:group|arm|intervention|consumption|intake|use|users|supplementation|vaccination|therapy|treatment|training|programme|program|exercise|drinking|versus|vs\b|or placebo|compared|plus)\b/i;
/** Last words that make a phrase an outcome on their own ("smoking cessation", "brain cancer"). */
const OUTCOME_HEAD =
  /^(?:cessation|abstinence|mortality|death|survival|cancer|disease|infection|pain|depression|anxiety|stroke|event|incidence|frailty|weight|pressure|quality|remission|relapse|recurrence|failure|injury|admission|hospitali[sz]ation|thrombosis|thromboembolism|fracture|dementia|delirium|diabetes|obesity|asthma|symptom|function|cognition)$/;
/** Last words that make a phrase an exposure or intervention on their own ("coffee consumption"). */
const INTERVENTION_HEAD =
  /^(?:consumption|intake|supplementation|vaccination|vaccine|training|programme|program|exercise|activity|drinking|smoking|counselling|counseling|surgery|screening|diet)$/;

/** Folds a word for matching: lower case, plural "-ies"/"-s" removed. */
function fold(word: string): string {
  const w = word.toLowerCase();
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith("s") && !/(?:ss|us|is|sis)$/.test(w)) return w.slice(0, -1);
  return w;
}

const isAcronym = (word: string) => /^[A-Z][A-Z0-9-]{1,6}$/.test(word) && /[A-Z].*[A-Z]|[A-Z]\d/.test(word);

/** Whether a word can be part of a theme. */
function isContent(word: string): boolean {
  const lower = word.toLowerCase().replace(/['’]s$/, "");
  if (STATISTIC_ACRONYMS.has(lower)) return false;
  if (isAcronym(word)) return true;
  if (lower.length < 3 || /\d/.test(lower)) return false;
  return !THEME_STOPWORDS.has(lower) && !THEME_STOPWORDS.has(fold(lower));
}

interface Occurrence {
  key: string;
  surface: string;
  words: number;
  start: number;
  end: number;
}

/** Every phrase of 1–3 adjacent content words in a sentence, with its offsets. */
export function phrasesOf(sentence: string): Occurrence[] {
  const out: Occurrence[] = [];
  let run: { word: string; start: number; end: number }[] = [];
  const flush = () => {
    for (let i = 0; i < run.length; i++) {
      for (let n = 1; n <= MAX_PHRASE_WORDS && i + n <= run.length; n++) {
        const parts = run.slice(i, i + n);
        out.push({
          key: parts.map((p) => fold(p.word.replace(/['’]s$/, ""))).join(" "),
          surface: parts
            .map((p) => (isAcronym(p.word) ? p.word : p.word.toLowerCase().replace(/['’]s$/, "")))
            .join(" "),
          words: n,
          start: parts[0]!.start,
          end: parts[n - 1]!.end,
        });
      }
    }
    run = [];
  };
  let lastEnd = 0;
  for (const m of sentence.matchAll(/[\p{L}][\p{L}\p{N}'’-]*|\d[\d.,]*/gu)) {
    const word = m[0];
    const start = m.index;
    // Only spaces (or a hyphen inside the word) may join two words of a phrase.
    if (run.length > 0 && !/^[^\S\n]+$/.test(sentence.slice(lastEnd, start))) flush();
    if (isContent(word)) run.push({ word, start, end: start + word.length });
    else flush();
    lastEnd = start + word.length;
  }
  flush();
  return out;
}

/** The role the words around one use of a phrase give it, or null. */
export function roleAt(sentence: string, start: number, end: number, key: string): ThemeRole | null {
  const before = sentence.slice(Math.max(0, start - 80), start);
  const after = sentence.slice(end, end + 40);
  const head = key.split(" ").at(-1)!;
  if (INTERVENTION_HEAD.test(head)) return "intervention";
  if (OUTCOME_HEAD.test(head)) return "outcome";
  if (OUTCOME_BEFORE.test(before) || OUTCOME_AFTER.test(after)) return "outcome";
  if (INTERVENTION_BEFORE.test(before) || INTERVENTION_AFTER.test(after)) return "intervention";
  return null;
}

/**
 * The themes of a set of studies, best first (at most {@link MAX_THEMES}).
 *
 * With two or more studies a theme must be used by at least two; a single word needs a role
 * (outcome or intervention) or must appear in a first sentence (the title), so filler such as
 * "plus" never becomes a theme. With one study, phrases it uses at least twice.
 * A phrase inside or containing a chosen one is skipped ("cancer" after "brain cancer").
 */
export function findThemes(studies: readonly ThemeStudy[]): ThemePhrase[] {
  const terms = new Map<
    string,
    ThemePhrase & { votes: Record<ThemeRole, number>; surfaces: Map<string, number>; inTitle: boolean }
  >();
  for (const study of studies) {
    const outcomeKeys = new Set((study.outcomes ?? []).flatMap((o) => phrasesOf(o).map((p) => p.key)));
    study.sentences.forEach((sentence, index) => {
      for (const occ of phrasesOf(sentence)) {
        const term = terms.get(occ.key) ?? {
          key: occ.key,
          phrase: occ.surface,
          words: occ.words,
          role: null,
          studies: new Map<number, number>(),
          count: 0,
          votes: { outcome: 0, intervention: 0 },
          surfaces: new Map<string, number>(),
          inTitle: false,
        };
        term.count++;
        term.surfaces.set(occ.surface, (term.surfaces.get(occ.surface) ?? 0) + 1);
        if (!term.studies.has(study.number)) term.studies.set(study.number, index);
        if (index === 0) term.inTitle = true;
        let role = roleAt(sentence, occ.start, occ.end, occ.key);
        if (!role && outcomeKeys.has(occ.key)) role = "outcome";
        if (
          !role &&
          study.interventionSentences?.has(index) &&
          INTERVENTION_BEFORE.test(sentence.slice(Math.max(0, occ.start - 80), occ.start))
        ) {
          role = "intervention";
        }
        if (role) term.votes[role]++;
        terms.set(occ.key, term);
      }
    });
  }
  const minStudies = studies.length >= 2 ? 2 : 1;
  const candidates = [...terms.values()]
    .map((t) => {
      const role: ThemeRole | null =
        t.votes.outcome === 0 && t.votes.intervention === 0
          ? null
          : t.votes.intervention > t.votes.outcome
            ? "intervention"
            : "outcome";
      const phrase = [...t.surfaces.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
      return { ...t, role, phrase };
    })
    .filter((t) => t.studies.size >= minStudies)
    .filter((t) => (minStudies > 1 ? t.words > 1 || t.role !== null || t.inTitle : t.count >= 2))
    .sort(
      (a, b) =>
        b.studies.size - a.studies.size ||
        Number(b.role !== null) - Number(a.role !== null) ||
        b.words - a.words ||
        b.count - a.count ||
        a.key.localeCompare(b.key),
    );
  const chosen: ThemePhrase[] = [];
  for (const t of candidates) {
    if (chosen.length === MAX_THEMES) break;
    const words = ` ${t.key} `;
    if (chosen.some((c) => ` ${c.key} `.includes(words) || words.includes(` ${c.key} `))) continue;
    chosen.push({ key: t.key, phrase: t.phrase, words: t.words, role: t.role, studies: t.studies, count: t.count });
  }
  return chosen;
}

/** "smoking cessation" → "Smoking cessation" (acronyms kept). */
export function capitalise(phrase: string): string {
  return phrase.charAt(0).toUpperCase() + phrase.slice(1);
}
