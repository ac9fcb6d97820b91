import type { LanguageModelV4GenerateResult } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { hasSharedFixtures, MISSING_FIXTURES_MESSAGE, readJsonFixture } from "../../../tests/fixtures";
import { createOfflineModel } from "./offline-model";
import { OFFLINE_MODEL_NAME } from "./registry";
import {
  MIN_RELEVANT_STUDIES,
  rankLexically,
  RELEVANCE_THRESHOLD,
  SMART_FILTER_BATCH_SIZE,
  smartFilter,
  type RelevanceStudy,
} from "./relevance";

const EUROPEPMC_COVID = "europepmc/search_core_COVID-19_pageSize25.json";

interface EuropePmcRecord {
  id: string;
  title: string;
  abstractText?: string;
}

function covidStudies(): RelevanceStudy[] {
  const body = readJsonFixture(EUROPEPMC_COVID) as { resultList: { result: EuropePmcRecord[] } };
  return body.resultList.result.map((r) => ({ id: r.id, title: r.title, abstract: r.abstractText ?? null }));
}

const oneDecimal = (x: number) => Math.round(x * 10) / 10 === x;

describe.skipIf(!hasSharedFixtures())(
  `rankLexically on Europe PMC COVID-19 records (${hasSharedFixtures() ? "../shared fixtures" : `skipped: ${MISSING_FIXTURES_MESSAGE}`})`,
  () => {
    it("ranks each record first for a query made of its own title", () => {
      const studies = covidStudies();
      expect(studies).toHaveLength(25);
      for (const study of studies) {
        expect(rankLexically(study.title, studies)[0]!.id, study.title).toBe(study.id);
      }
    });

    it("ranks the thyroiditis record first for 'subacute thyroiditis after vaccination'", () => {
      const ranked = rankLexically("subacute thyroiditis after vaccination", covidStudies());
      expect(ranked[0]).toMatchObject({ id: "38729568" });
      expect(ranked[0]!.relevanceReason).toBe(
        "Matches 'subacute', 'thyroiditis', 'vaccination' in title; 'subacute', 'thyroiditis', 'vaccination' in abstract",
      );
      expect(ranked[0]!.relevanceScore).toBeGreaterThan(ranked[1]!.relevanceScore);
    });

    it("gives one-decimal scores within 0–10, sorted descending, one per study", () => {
      const studies = covidStudies();
      const ranked = rankLexically("vaccination thromboembolic complications", studies);
      expect(new Set(ranked.map((r) => r.id))).toEqual(new Set(studies.map((s) => s.id)));
      for (const r of ranked) {
        expect(r.relevanceScore).toBeGreaterThanOrEqual(0);
        expect(r.relevanceScore).toBeLessThan(10);
        expect(oneDecimal(r.relevanceScore)).toBe(true);
      }
      const scores = ranked.map((r) => r.relevanceScore);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    });

    it("names the matched terms and where they occur", () => {
      const ranked = rankLexically("favipiravir vaccination", covidStudies());
      expect(ranked[0]).toMatchObject({
        id: "38314855",
        relevanceReason: "Matches 'favipiravir' in title; 'favipiravir' in abstract",
      });
      const abstractOnly = ranked.find((r) => r.id === "38471729")!;
      expect(abstractOnly.relevanceReason).toBe("Matches 'vaccination' in abstract");
    });

    it("scores 0 with a no-match reason when no query term appears", () => {
      const ranked = rankLexically("zebrafish retina", covidStudies());
      for (const r of ranked) {
        expect(r.relevanceScore).toBe(0);
        expect(r.relevanceReason).toBe(
          "None of the query terms ('zebrafish', 'retina') appear in the title or abstract",
        );
      }
    });

    it("is deterministic", () => {
      const studies = covidStudies();
      expect(rankLexically("COVID-19 vaccine children", studies)).toEqual(
        rankLexically("COVID-19 vaccine children", studies),
      );
    });
  },
);

describe("rankLexically", () => {
  const studies: RelevanceStudy[] = [
    {
      id: 1,
      title: "Bone density in older adults",
      abstract: "Vitamin D supplementation and hip fractures were studied.",
    },
    { id: 2, title: "Vitamin D and fracture risk", abstract: "A trial of vitamin D." },
    { id: 3, title: "Statins for stroke", abstract: null },
  ];

  it("weights the title above the abstract and stems plurals", () => {
    const ranked = rankLexically("vitamin fractures", studies);
    expect(ranked.map((r) => r.id)).toEqual([2, 1, 3]);
    expect(ranked[0]!.relevanceReason).toBe("Matches 'vitamin', 'fractures' in title; 'vitamin' in abstract");
    expect(ranked[1]!.relevanceReason).toBe("Matches 'vitamin', 'fractures' in abstract");
  });

  it("matches the parts of hyphenated words", () => {
    const ranked = rankLexically("covid", [
      { id: "a", title: "Long-term outcomes of COVID-19", abstract: "" },
      { id: "b", title: "Influenza outcomes", abstract: "" },
    ]);
    expect(ranked[0]).toMatchObject({ id: "a", relevanceReason: "Matches 'covid' in title" });
    expect(ranked[1]!.relevanceScore).toBe(0);
  });

  it("matches a stop-word-only query word for word", () => {
    const ranked = rankLexically("the", studies);
    expect(ranked.every((r) => r.relevanceScore === 0)).toBe(true);
    const withThe = rankLexically("what", [{ id: 9, title: "What works", abstract: null }, ...studies]);
    expect(withThe[0]).toMatchObject({ id: 9, relevanceReason: "Matches 'what' in title" });
  });

  it("returns an empty list for no studies", () => {
    expect(rankLexically("vitamin", [])).toEqual([]);
  });
});

type Rating = { id: string | number; relevanceScore: number; relevanceReason: string };

function jsonReply(text: string): LanguageModelV4GenerateResult {
  return {
    content: [{ type: "text", text }],
    finishReason: { unified: "stop", raw: "stop" },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 20, text: 20, reasoning: undefined },
    },
    warnings: [],
  };
}

const ratingsReply = (ratings: Rating[]) => jsonReply(JSON.stringify({ ratings }));

function manyStudies(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    title: `Study number ${i + 1} on vitamin D`,
    abstract: null,
    journal: `Journal ${i + 1}`,
  }));
}

describe("smartFilter with a remote model", () => {
  const studies = [
    { id: 1, title: "Vitamin D and fracture risk", abstract: "Vitamin D lowered fracture risk.", journal: "BMJ" },
    { id: "pmid-2", title: "Statins for stroke", abstract: null, journal: "Lancet" },
    { id: 3, title: "Calcium and bone density", abstract: "Fracture outcomes were recorded.", journal: "JAMA" },
  ];

  it("uses the model's scores, ignores unknown ids and falls back to lexical scores for missing ids", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: ratingsReply([
        { id: "pmid-2", relevanceScore: 0.5, relevanceReason: "About stroke, not fractures." },
        { id: 1, relevanceScore: 9.46, relevanceReason: "Directly studies vitamin D and fractures." },
        { id: 999, relevanceScore: 10, relevanceReason: "Not an input study." },
        { id: "1", relevanceScore: 0, relevanceReason: "A second rating of study 1 is ignored." },
      ]),
    });
    const result = await smartFilter(
      { model, modelName: "gpt-test (OpenAI)", provider: "openai" },
      { searchQuery: "vitamin D fracture", studies },
    );
    expect(result.model).toBe("gpt-test (OpenAI)");
    expect(result.relevantStudies.map((s) => s.id)).toEqual([1, 3, "pmid-2"]);
    expect(result.relevantStudies[0]).toEqual({
      ...studies[0],
      relevanceScore: 9.5,
      relevanceReason: "Directly studies vitamin D and fractures.",
    });
    const lexical = rankLexically("vitamin D fracture", studies).find((r) => r.id === 3)!;
    expect(lexical.relevanceScore).toBeGreaterThan(0.5);
    expect(result.relevantStudies[1]).toMatchObject({
      journal: "JAMA",
      relevanceScore: lexical.relevanceScore,
      relevanceReason: `Not rated by the model; lexical match: ${lexical.relevanceReason}`,
    });
    expect(result.relevantStudies[2]).toMatchObject({
      relevanceScore: 0.5,
      relevanceReason: "About stroke, not fractures.",
    });
    expect(result.relevantStudies.some((s) => s.id === 999)).toBe(false);

    expect(model.doGenerateCalls).toHaveLength(1);
    const call = model.doGenerateCalls[0]!;
    expect(call.responseFormat).toMatchObject({ type: "json", name: "relevance_ratings" });
    expect(JSON.stringify(call.prompt)).toContain("Search query: vitamin D fracture");
  });

  it("clamps scores to 0–10 and drops studies below the threshold once enough remain", async () => {
    const input = manyStudies(8);
    const model = new MockLanguageModelV4({
      doGenerate: ratingsReply(
        input.map((s, i) => ({ id: s.id, relevanceScore: i < 6 ? 14 - i : -1, relevanceReason: `r${s.id}` })),
      ),
    });
    const { relevantStudies } = await smartFilter(
      { model, modelName: "m", provider: "openai" },
      { searchQuery: "vitamin D", studies: input },
    );
    expect(relevantStudies.map((s) => s.relevanceScore)).toEqual([10, 10, 10, 10, 10, 9]);
    expect(relevantStudies.every((s) => s.relevanceScore >= RELEVANCE_THRESHOLD)).toBe(true);
  });

  it("keeps the top studies when too few pass the threshold", async () => {
    const input = manyStudies(7);
    const model = new MockLanguageModelV4({
      doGenerate: ratingsReply(input.map((s) => ({ id: s.id, relevanceScore: s.id / 10, relevanceReason: "weak" }))),
    });
    const { relevantStudies } = await smartFilter(
      { model, modelName: "m", provider: "openai" },
      { searchQuery: "unrelated query", studies: input },
    );
    expect(relevantStudies).toHaveLength(MIN_RELEVANT_STUDIES);
    expect(relevantStudies.map((s) => s.id)).toEqual([7, 6, 5, 4, 3]);
  });

  it(`sends at most ${SMART_FILTER_BATCH_SIZE} studies per model call`, async () => {
    const input = manyStudies(SMART_FILTER_BATCH_SIZE * 2 + 1);
    const model = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) => {
        const ids = [...JSON.stringify(prompt).matchAll(/\\"id\\":(\d+)/g)].map((m) => Number(m[1]));
        return ratingsReply(ids.map((id) => ({ id, relevanceScore: 5, relevanceReason: "ok" })));
      },
    });
    const { relevantStudies } = await smartFilter(
      { model, modelName: "m", provider: "openai" },
      { searchQuery: "vitamin D", studies: input },
    );
    expect(model.doGenerateCalls).toHaveLength(3);
    expect(relevantStudies).toHaveLength(input.length);
    expect(relevantStudies.every((s) => s.relevanceReason === "ok")).toBe(true);
  });

  it("reads fenced JSON from OpenAI-compatible models", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: jsonReply(
        "```json\n" +
          JSON.stringify({ ratings: [{ id: 1, relevanceScore: 8, relevanceReason: "On topic." }] }) +
          "\n```",
      ),
    });
    const { relevantStudies } = await smartFilter(
      { model, modelName: "llama3.2", provider: "openai-compatible" },
      { searchQuery: "vitamin D", studies: studies.slice(0, 1) },
    );
    expect(relevantStudies[0]).toMatchObject({ id: 1, relevanceScore: 8, relevanceReason: "On topic." });
  });

  it("rejects when the model throws", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new Error("upstream down");
      },
    });
    await expect(
      smartFilter({ model, modelName: "m", provider: "openai" }, { searchQuery: "vitamin D", studies }),
    ).rejects.toThrow("upstream down");
  });

  it("rejects when the model's JSON does not match the schema", async () => {
    const model = new MockLanguageModelV4({ doGenerate: jsonReply('{"scores": []}') });
    await expect(
      smartFilter({ model, modelName: "m", provider: "openai" }, { searchQuery: "vitamin D", studies }),
    ).rejects.toThrow(/did not match schema/);
  });
});

describe("smartFilter with the offline model", () => {
  it("ranks lexically, keeps every field and reports the model name", async () => {
    const input = [
      { id: 1, title: "Statins for stroke", abstract: null, doi: "10.1/a" },
      { id: 2, title: "Vitamin D and fracture risk", abstract: "Vitamin D lowered fracture risk.", doi: "10.1/b" },
    ];
    const result = await smartFilter(
      { model: createOfflineModel(), modelName: OFFLINE_MODEL_NAME, provider: "offline" },
      { searchQuery: "vitamin D fracture", studies: input },
    );
    expect(result.model).toBe(OFFLINE_MODEL_NAME);
    expect(result.relevantStudies.map((s) => s.id)).toEqual([2, 1]);
    const ranked = rankLexically("vitamin D fracture", input);
    expect(result.relevantStudies).toEqual(
      [input[1]!, input[0]!].map((s, i) => ({
        ...s,
        relevanceScore: ranked[i]!.relevanceScore,
        relevanceReason: ranked[i]!.relevanceReason,
      })),
    );
  });

  it("returns nothing for no studies", async () => {
    const result = await smartFilter(
      { model: createOfflineModel(), modelName: OFFLINE_MODEL_NAME, provider: "offline" },
      { searchQuery: "vitamin", studies: [] },
    );
    expect(result).toEqual({ relevantStudies: [], model: OFFLINE_MODEL_NAME });
  });
});
