import { describe, expect, it } from "vitest";
import { recordsToAdd, searchImportPlan, SEARCH_IMPORT_PER_DATABASE } from "./reviews";

describe("searchImportPlan", () => {
  it("states at most what each answering database can bring, never a failed database's or more than 500 each", () => {
    const plan = searchImportPlan({
      pubmed: { status: "ok", totalCount: 42_249 },
      crossref: { status: "ok", totalCount: 37 },
      core: { status: "failed", totalCount: 0 },
      doaj: { status: "ok", totalCount: 0 },
      semanticscholar: undefined,
    });
    expect(plan.databases).toEqual([
      { provider: "pubmed", hits: 42_249, upTo: SEARCH_IMPORT_PER_DATABASE },
      { provider: "crossref", hits: 37, upTo: 37 },
    ]);
    expect(plan.upTo).toBe(537);
    expect(
      recordsToAdd({ pubmed: { status: "ok", totalCount: 42_249 }, crossref: { status: "ok", totalCount: 37 } }),
    ).toBe(537);
    expect(searchImportPlan({}).upTo).toBe(0);
  });
});
