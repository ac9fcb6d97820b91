import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  hasWorkerFixtures,
  MISSING_WORKER_FIXTURES,
  workerFixtureReader,
} from "../../../tests/mocks/workers-fixtures.ts";
import { normaliseCrossrefWorks } from "../search/providers/crossref";
import { normaliseEuropePmcSearch } from "../search/providers/europepmc";
import { normaliseSemanticScholar } from "../search/providers/semanticscholar";
import { normaliseCoreSearch } from "../search/providers/core";
import { dedupeStudies } from "../search/dedupe";
import { upsertStudies } from "./persist";
import { lookupStoredStudies } from "./lookup";
import { studyIdFor } from "./identity";
import { saveSummary } from "./queries";
import { createDb } from "../db/client";

const suite = hasWorkerFixtures ? describe : describe.skip;
const json = (path: string) => JSON.parse(workerFixtureReader(path)!) as unknown;

suite(hasWorkerFixtures ? "upsertStudies on recorded records" : `upsertStudies — ${MISSING_WORKER_FIXTURES}`, () => {
  it("gives a paper one stable row across databases and enriches it", async () => {
    const crossref = normaliseCrossrefWorks(json("crossref/works_10.1016-j.addr.2015.01.008.json")).studies[0]!;
    const s2 = normaliseSemanticScholar(json("semanticscholar/paper_DOI_10.1016-j.addr.2015.01.008.json")).studies[0]!;
    const [first] = await upsertStudies(env.DB, [crossref]);
    const [second] = await upsertStudies(env.DB, [s2]);
    expect(second!.row.id).toBe(first!.row.id);
    expect(second!.row.source).toBe("crossref");
    const expectedCitations = Math.max(crossref.citationCount ?? 0, s2.citationCount ?? 0);
    expect(second!.row.citationCount).toBe(expectedCitations);
    expect(second!.row.authors.length).toBe(Math.max(crossref.authors.length, s2.authors.length));
    const again = await upsertStudies(env.DB, [crossref]);
    expect(again[0]!.row.id).toBe(first!.row.id);
  });

  it("matches by title when a record carries no identifier, and returns the stored summary", async () => {
    const records = normaliseEuropePmcSearch(json("europepmc/search_core_COVID-19_pageSize25.json")).studies;
    const withDoi = records.find((r) => r.doi && r.title.length > 40)!;
    const [stored] = await upsertStudies(env.DB, [withDoi]);
    await saveSummary(
      { db: createDb(env.DB) },
      { studyId: stored!.row.id, model: "test-model", content: "A summary." },
    );
    const bare = { ...withDoi, doi: null, pmid: null, pmcid: null, source: "doaj" as const, sourceId: "x1" };
    const [matched] = await upsertStudies(env.DB, [bare]);
    expect(matched!.row.id).toBe(stored!.row.id);
    expect(matched!.summary).toMatchObject({ content: "A summary.", model: "test-model", citations: null });
  });

  it("returns the newest summary with its own citations", async () => {
    const records = normaliseEuropePmcSearch(json("europepmc/search_core_COVID-19_pageSize25.json")).studies;
    const record = records.find((r) => (r.abstract ?? "").length > 100 && r !== records[0])!;
    const [stored] = await upsertStudies(env.DB, [record]);
    const db = { db: createDb(env.DB) };
    const quote = stored!.row.abstract!.slice(0, 40);
    const citations = [{ id: "S1", quote, start: 0, end: 40, anchors: [12] }];
    await saveSummary(db, { studyId: stored!.row.id, model: "older-model", content: "Older.", citations: null });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await saveSummary(db, { studyId: stored!.row.id, model: "cited-model", content: "Cited summary.", citations });
    // Another feature's row (a specialized analysis) is never taken for the summary.
    await saveSummary(db, {
      studyId: stored!.row.id,
      model: "cited-model",
      content: "Focus text.",
      feature: "specialized",
      focus: "nutrition",
      citations: [{ id: "S9", quote: "x", start: 0, end: 1 }],
    });
    const [again] = await upsertStudies(env.DB, [record]);
    expect(again!.row.id).toBe(stored!.row.id);
    expect(again!.summary).toMatchObject({ content: "Cited summary.", model: "cited-model", citations });
    expect(again!.fullTextAnalysis).toBeNull();
    // A full-text analysis comes back beside the summary (search results report it).
    await saveSummary(db, {
      studyId: stored!.row.id,
      model: "ft-model",
      content: "Full-text analysis.",
      feature: "fulltext",
    });
    const [withFullText] = await upsertStudies(env.DB, [record]);
    expect(withFullText!.fullTextAnalysis).toBe("Full-text analysis.");
    expect(withFullText!.summary).toMatchObject({ content: "Cited summary." });
  });

  it("never moves an identifier another row holds (unique indexes cannot fail)", async () => {
    const records = normaliseEuropePmcSearch(json("europepmc/search_core_COVID-19_pageSize25.json")).studies.filter(
      (r) => r.doi && r.pmid,
    );
    const [a, b] = records;
    const [rowA, rowB] = await upsertStudies(env.DB, [a!, b!]);
    expect(rowA!.row.id).not.toBe(rowB!.row.id);
    // A record claiming A's DOI and B's PMID updates A and leaves B's PMID where it is.
    const mixed = { ...a!, pmid: b!.pmid, title: "A different title entirely for this check" };
    const [result] = await upsertStudies(env.DB, [mixed]);
    expect(result!.row.id).toBe(rowA!.row.id);
    const pmidOwner = await env.DB.prepare("SELECT id FROM studies WHERE pmid = ?")
      .bind(b!.pmid)
      .first<{ id: number }>();
    expect(pmidOwner!.id).toBe(rowB!.row.id);
  });

  it("stores a whole provider page in one batch, one row per distinct paper", async () => {
    const records = normaliseEuropePmcSearch(json("europepmc/search_core_Cytokine-Storm_pageSize100.json")).studies;
    const saved = await upsertStudies(env.DB, records);
    expect(saved).toHaveLength(records.length);
    // The page holds one paper twice (with and without its DOI): the same rule as dedupeStudies.
    expect(new Set(saved.map((s) => s.row.id)).size).toBe(dedupeStudies([records]).studies.length);
    expect(new Set(saved.map((s) => s.row.id)).size).toBe(records.length - 1);
  });

  it("keeps one row for a record known only by its database id, and a search finds it with its summary", async () => {
    // A CORE record with no DOI, no PMID and a short generic title ('Dispatch'): studyKey's source case.
    const core = normaliseCoreSearch(json("core/v2_search_ecology_page1_pageSize10.json")).studies[0]!;
    const bare = { ...core, doi: null, pmid: null, pmcid: null, title: "Dispatch", sourceId: `${core.sourceId}-bare` };
    const [first] = await upsertStudies(env.DB, [bare]);
    expect(first!.row.id).toBe(studyIdFor(bare));
    const [again] = await upsertStudies(env.DB, [{ ...bare, abstract: `${bare.abstract ?? ""} More.` }]);
    expect(again!.row.id).toBe(first!.row.id);
    const count = await env.DB.prepare("SELECT count(*) AS n FROM studies WHERE source = ? AND source_id = ?")
      .bind(bare.source, bare.sourceId)
      .first<{ n: number }>();
    expect(count!.n).toBe(1);

    await saveSummary(
      { db: createDb(env.DB) },
      { studyId: first!.row.id, model: "test-model", content: "Short-titled." },
    );
    const otherId = { ...bare, sourceId: `${bare.sourceId}-other` };
    const otherDatabase = { ...bare, source: "doaj" as const };
    const [found, other, elsewhere] = await lookupStoredStudies(env.DB, [bare, otherId, otherDatabase]);
    expect(found!.id).toBe(first!.row.id);
    expect(found!.stored!.summary).toMatchObject({ content: "Short-titled.", model: "test-model" });
    // The same short title under another id, or the same id in another database, is another record.
    expect(other).toEqual({ id: studyIdFor(otherId), stored: null });
    expect(elsewhere).toEqual({ id: studyIdFor(otherDatabase), stored: null });
    const [storedOther] = await upsertStudies(env.DB, [otherId]);
    expect(storedOther!.row.id).not.toBe(first!.row.id);
  });
});
