/**
 * A review's screening corpus kept compact and ready (issue 27: 20,000-record reviews, the 50,000
 * import limit). Records are tokenised once, when they are imported: their term counts
 * (app/lib/screening/term-counts.ts) are stored in R2 in chunks of at most CHUNK_RECORDS records,
 * under the review owner's upload prefix (so deleting the account removes them):
 * `uploads/{ownerId}/screening/{reviewId}/terms/{first record id, 12 digits}`. A retraining then
 * assembles the TF-IDF corpus from those counts (arithmetic only, ≈ 20× faster than tokenising)
 * instead of re-reading and re-tokenising every title and abstract; the assembled corpus is cached
 * per isolate within a memory budget.
 *
 * Counts made under other feature settings, or records without counts (imported before this
 * existed, a failed write), make loadCorpus rebuild the review's chunks from D1 once — paged, so
 * only CHUNK_RECORDS texts are in memory at a time.
 */
import { ScreeningInputError, type ScreeningCorpus, type ScreeningInput } from "~/lib/screening";
import {
  countTerms,
  decodeTermCounts,
  encodeTermCounts,
  featuresSignature,
  termCountsMerger,
} from "~/lib/screening/term-counts";
import type { ReviewsApp } from "./service";

/** Records per stored chunk: ≈ 200 ms of tokenising and ≈ 1.5 MB of counts each. */
export const CHUNK_RECORDS = 2000;
/** Chunks read from R2 at once. */
const READ_PARALLEL = 4;
/** Bytes of assembled corpora an isolate keeps (the Worker has 128 MB; one 50,000-record corpus is ≈ 45 MB). */
export const CORPUS_CACHE_BYTES = 48 * 1024 * 1024;

/** Where a review's term counts live in R2 (under the owner's upload prefix). */
export const termCountsPrefix = (ownerId: string, reviewId: string) =>
  `uploads/${ownerId}/screening/${reviewId}/terms/`;
const chunkKey = (ownerId: string, reviewId: string, firstId: number) =>
  `${termCountsPrefix(ownerId, reviewId)}${String(firstId).padStart(12, "0")}`;

/** A record's text as the corpus reads it (the columns D1 stores). */
export interface CorpusText {
  id: number;
  title: string;
  abstract: string | null;
  keywords: string | null;
}

const asInput = (r: CorpusText): ScreeningInput => ({
  id: String(r.id),
  title: r.title,
  abstract: r.abstract,
  keywords: r.keywords,
});

/**
 * Counts the terms of `records` (ascending ids) and stores them, CHUNK_RECORDS per object.
 * Called at import time; a failure here only costs a later rebuild (loadCorpus), never the import.
 */
export async function storeTermCounts(
  app: ReviewsApp,
  review: { id: string; userId: string },
  records: CorpusText[],
): Promise<void> {
  for (let at = 0; at < records.length; at += CHUNK_RECORDS) {
    if (at > 0) await yieldToEventLoop();
    await putChunk(app, review, records.slice(at, at + CHUNK_RECORDS));
  }
}

async function putChunk(app: ReviewsApp, review: { id: string; userId: string }, records: CorpusText[]) {
  const chunk = countTerms(records.map(asInput));
  await app.bindings.BUCKET.put(chunkKey(review.userId, review.id, records[0]!.id), encodeTermCounts(chunk), {
    customMetadata: {
      features: chunk.features,
      records: String(chunk.ids.length),
      postings: String(chunk.cols.length),
    },
  });
}

const yieldToEventLoop = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * The corpus of the review's unique records `ids` (ascending). From the stored chunks when they
 * cover every id with the current feature settings; otherwise the chunks are rebuilt from D1
 * (every record of the review, duplicates too, so undoing a merge needs no rebuild) and the corpus
 * comes from that rebuild. Rows are in chunk order (ascending ids).
 * @returns the corpus and where it came from (for the bench's and tests' figures).
 */
export async function loadCorpus(
  app: ReviewsApp,
  review: { id: string; userId: string },
  ids: readonly number[],
): Promise<{ corpus: ScreeningCorpus; source: "stored" | "rebuilt" }> {
  const wanted = new Set(ids.map(String));
  const signature = featuresSignature();
  const prefix = termCountsPrefix(review.userId, review.id);
  const objects: R2Object[] = [];
  let cursor: string | undefined;
  do {
    const page = await app.bindings.BUCKET.list({ prefix, cursor, limit: 1000, include: ["customMetadata"] });
    objects.push(...page.objects);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  objects.sort((a, b) => (a.key < b.key ? -1 : 1));
  const covered = objects.reduce((n, o) => n + Number(o.customMetadata?.records ?? 0), 0);
  if (objects.length > 0 && covered >= wanted.size && objects.every((o) => o.customMetadata?.features === signature)) {
    const corpus = await assemble(app, objects, wanted).catch((error: unknown) => {
      if (error instanceof ScreeningInputError) return null;
      throw error;
    });
    if (corpus) return { corpus, source: "stored" };
  }
  if (objects.length > 0) await app.bindings.BUCKET.delete(objects.map((o) => o.key));
  return { corpus: await rebuild(app, review, wanted), source: "rebuilt" };
}

/** The keep-filter of a merge: wanted ids, each once (a record counted twice, e.g. by an import racing a rebuild, is taken once). */
function keeper(wanted: ReadonlySet<string>) {
  const taken = new Set<string>();
  return (id: string) => {
    if (!wanted.has(id) || taken.has(id)) return false;
    taken.add(id);
    return true;
  };
}

/** Joins the stored chunks (key order = id order); null when they miss a wanted record. */
async function assemble(
  app: ReviewsApp,
  objects: R2Object[],
  wanted: ReadonlySet<string>,
): Promise<ScreeningCorpus | null> {
  const postings = objects.reduce((n, o) => n + Number(o.customMetadata?.postings ?? 0), 0);
  const merger = termCountsMerger(undefined, { postings });
  const keep = keeper(wanted);
  for (let at = 0; at < objects.length; at += READ_PARALLEL) {
    const bodies = await Promise.all(
      objects.slice(at, at + READ_PARALLEL).map(async (o) => {
        const body = await app.bindings.BUCKET.get(o.key);
        if (!body) throw new ScreeningInputError(`Term counts ${o.key} vanished`);
        return body.arrayBuffer();
      }),
    );
    for (const bytes of bodies) merger.add(decodeTermCounts(bytes), keep);
  }
  return merger.rows === wanted.size ? merger.finish() : null;
}

/** Counts every record of the review again from D1 (pages of CHUNK_RECORDS), stores the chunks and assembles the corpus. */
async function rebuild(
  app: ReviewsApp,
  review: { id: string; userId: string },
  wanted: ReadonlySet<string>,
): Promise<ScreeningCorpus> {
  const merger = termCountsMerger();
  const keep = keeper(wanted);
  let after = 0;
  for (;;) {
    const { results } = await app.bindings.DB.prepare(
      "SELECT id, title, abstract, keywords FROM review_records WHERE review_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
    )
      .bind(review.id, after, CHUNK_RECORDS)
      .all<CorpusText>();
    if (results.length === 0) break;
    const chunk = countTerms(results.map(asInput));
    merger.add(chunk, keep);
    await app.bindings.BUCKET.put(chunkKey(review.userId, review.id, results[0]!.id), encodeTermCounts(chunk), {
      customMetadata: {
        features: chunk.features,
        records: String(chunk.ids.length),
        postings: String(chunk.cols.length),
      },
    });
    if (results.length < CHUNK_RECORDS) break;
    after = results.at(-1)!.id;
    await yieldToEventLoop();
  }
  return merger.finish();
}

/** Approximate bytes an assembled corpus holds (typed arrays plus ids and vocabulary strings). */
export function corpusBytes(corpus: ScreeningCorpus): number {
  return (
    corpus.cols.byteLength +
    corpus.vals.byteLength +
    corpus.rowPtr.byteLength +
    corpus.idf.byteLength +
    48 * (corpus.ids.length + corpus.vocab.length)
  );
}
