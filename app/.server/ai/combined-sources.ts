/**
 * Combined research summaries, step 1: the studies as numbered sources. Each study becomes "Tn"
 * (title + abstract), cut to {@link MAX_STUDY_CHARS}, with sentences numbered "Tn.Sm" — the ids
 * every citation of a combined summary points to (the prompt, the offline composer, grounding and
 * rendering all read these).
 */
import { numberSourceSentences, type SourceSentence } from "./grounding";
import { MIN_ABSTRACT_LENGTH } from "./prompts";

/** A study as the combined summary takes it (extra fields are ignored). */
export interface CombinedStudyInput {
  id?: string | number | null;
  title: string;
  abstract?: string | null;
  journal?: string | null;
  publicationDate?: string | null;
}

/** One study as numbered source: `text` is the title, a blank line, then the abstract. */
export interface StudySource {
  /** "T1", "T2", … in input order. */
  ref: string;
  /** 1-based position in the input ("Study 1"). */
  number: number;
  id: string | number | null;
  title: string;
  text: string;
  /** Offset where the title ends in `text`. */
  titleEnd: number;
  /** Whether the study has an abstract of at least {@link MIN_ABSTRACT_LENGTH} trimmed characters. */
  hasAbstract: boolean;
  /** Whether the abstract was shortened to {@link MAX_STUDY_CHARS}. */
  truncated: boolean;
  /** Numbered sentences with prefixed ids ("T1.S1" is the title); offsets into `text`. */
  sentences: SourceSentence[];
}

/** No study in the request has an abstract (SPEC §5/§8 'No Content Available'). */
export class NoStudyContentError extends Error {
  readonly code = "NO_CONTENT";
  constructor(message = "No Content Available") {
    super(message);
    this.name = "NoStudyContentError";
  }
}

/** Characters of one study's text (title + abstract) given to a model; longer abstracts are cut at a sentence end. */
export const MAX_STUDY_CHARS = 8000;

const stripTags = (text: string) => (/<[a-z/][^>]*>/i.test(text) ? text.replace(/<[^>]+>/g, " ") : text);

/**
 * Numbers the studies: T1…Tn, each study's text = trimmed title + "\n\n" + trimmed abstract (HTML
 * tags replaced by spaces), cut after the last whole sentence that ends within
 * {@link MAX_STUDY_CHARS}; sentences via `numberSourceSentences` with ids prefixed by the study
 * ref ("T2.S5").
 */
export function studySources(studies: readonly CombinedStudyInput[]): StudySource[] {
  return studies.map((study, i) => {
    const ref = `T${i + 1}`;
    const title = stripTags(study.title).replace(/\s+/g, " ").trim();
    const abstract = stripTags(study.abstract ?? "").trim();
    const hasAbstract = abstract.length >= MIN_ABSTRACT_LENGTH;
    let text = hasAbstract ? `${title}\n\n${abstract}` : title;
    let sentences = numberSourceSentences(text);
    let truncated = false;
    if (text.length > MAX_STUDY_CHARS) {
      const kept = sentences.filter((s) => s.end <= MAX_STUDY_CHARS);
      const cut = kept.length > 0 ? kept[kept.length - 1]!.end : MAX_STUDY_CHARS;
      text = text.slice(0, cut);
      sentences = numberSourceSentences(text);
      truncated = true;
    }
    return {
      ref,
      number: i + 1,
      id: study.id ?? null,
      title,
      text,
      titleEnd: title.length,
      hasAbstract,
      truncated,
      sentences: sentences.map((s) => ({ ...s, id: `${ref}.${s.id}` })),
    };
  });
}

// ---------------------------------------------------------------------------------------------

/** The id of a quote's sentence ("T2.S5"), from its 0-based index in the study's sentences. */
export const sentenceId = (source: StudySource, q: { sentenceIndex: number }) =>
  source.sentences[q.sentenceIndex]?.id ?? `${source.ref}.S${q.sentenceIndex + 1}`;
