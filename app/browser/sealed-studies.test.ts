import { afterEach, describe, expect, it, vi } from "vitest";
import { noteSealedStudies, storedStudyId, storedStudyIds, type SealedStudyFields } from "./sealed-studies";

function study(id: number, seal?: string): SealedStudyFields & { aiSummary: null } {
  return {
    id,
    title: `Study ${id}`,
    abstract: "An abstract.",
    authors: ["A. Author"],
    journal: null,
    publicationDate: "2024",
    pmid: null,
    pmcid: null,
    doi: `10.1/${id}`,
    source: "crossref",
    studyType: "Research Article",
    fullTextAvailable: false,
    isOpenAccess: false,
    openAccessUrl: null,
    url: null,
    citationCount: null,
    impactFactor: null,
    aiSummary: null,
    ...(seal ? { seal } : {}),
  };
}

afterEach(() => vi.unstubAllGlobals());

describe("sealed studies are stored once before the first action", () => {
  it("concurrent actions on sealed studies share one store call; the API's other fields are not sent", async () => {
    const fetchMock = vi.fn(async (_url: string, init: RequestInit) => {
      const { studies } = JSON.parse(String(init.body)) as { studies: SealedStudyFields[] };
      return Response.json({ ids: Object.fromEntries(studies.map((s) => [s.id, s.id === 2 ? 20 : s.id])) });
    });
    vi.stubGlobal("fetch", fetchMock);
    noteSealedStudies([study(1, "a.b"), study(2, "c.d"), study(3)]);
    const [a, b] = await Promise.all([storedStudyIds([1, 2, 3]), storedStudyId(2)]);
    expect(a).toEqual([1, 20, 3]);
    expect(b).toBe(20);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const sent = JSON.parse(String(fetchMock.mock.calls[0]![1].body)) as { studies: Record<string, unknown>[] };
    expect(sent.studies.map((s) => s.id)).toEqual([1, 2]);
    expect(sent.studies[0]).not.toHaveProperty("aiSummary");
    expect(sent.studies[0]).toMatchObject({ seal: "a.b", doi: "10.1/1" });
    // Stored: later actions need no call and keep the stored id.
    expect(await storedStudyIds([2, 1])).toEqual([20, 1]);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it("a failed store leaves the id unchanged and is tried again on the next action", async () => {
    const fetchMock = vi
      .fn()
      .mockResolvedValueOnce(new Response("{}", { status: 503 }))
      .mockResolvedValueOnce(Response.json({ ids: { 7: 7 } }));
    vi.stubGlobal("fetch", fetchMock);
    noteSealedStudies([study(7, "e.f")]);
    expect(await storedStudyId(7)).toBe(7);
    expect(await storedStudyId(7)).toBe(7);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(await storedStudyId(7)).toBe(7);
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it("a study a later search returns without a seal has a row: no store call", async () => {
    const fetchMock = vi.fn();
    vi.stubGlobal("fetch", fetchMock);
    noteSealedStudies([study(9, "g.h")]);
    noteSealedStudies([study(9)]);
    expect(await storedStudyId(9)).toBe(9);
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
