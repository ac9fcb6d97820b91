import { describe, expect, it } from "vitest";
import { cachedAnswer, readSearchCache, SEARCH_CACHE_TTL_SECONDS, searchCacheKey, writeSearchCache } from "./cache";
import type { ProviderId, ProviderResult } from "./types";

/** A KV namespace in memory that counts its reads and writes. */
function fakeKv() {
  const data = new Map<string, string>();
  const kv = {
    gets: 0,
    puts: 0,
    async get(key: string) {
      kv.gets++;
      const text = data.get(key);
      return text === undefined ? null : (JSON.parse(text) as unknown);
    },
    async put(key: string, value: string) {
      kv.puts++;
      data.set(key, value);
    },
    data,
  };
  return kv as typeof kv & KVNamespace;
}

const result = (n: number): ProviderResult => ({
  studies: Array.from({ length: n }, (_, i) => ({ title: `Study ${i}` }) as ProviderResult["studies"][number]),
  totalCount: n * 10,
});
const answers = (entries: [ProviderId, ProviderResult][]) => new Map(entries);
const NO_FILTERS = { dateRange: "all" } as never;

describe("search cache: one entry per parameter set, isolate memory tier in front of KV", () => {
  it("keys by the normalised parameters, not the database", async () => {
    const a = await searchCacheKey({ query: "Sleep  Quality", page: 1, limit: 25, filters: NO_FILTERS });
    const b = await searchCacheKey({ query: " sleep quality ", page: 1, limit: 25, filters: NO_FILTERS });
    const c = await searchCacheKey({ query: "sleep quality", page: 2, limit: 25, filters: NO_FILTERS });
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(a).toMatch(/^search:v2:[0-9a-f]{64}$/);
  });

  it("stores every database's answer of a search in one write and reads them back by database", async () => {
    const kv = fakeKv();
    const key = `search:test:${crypto.randomUUID()}`;
    const now = Date.now();
    await writeSearchCache(
      kv,
      key,
      null,
      answers([
        ["pubmed", result(2)],
        ["crossref", result(3)],
      ]),
      now,
    );
    expect(kv.puts).toBe(1);
    const entry = await readSearchCache(kv, key, now);
    expect(kv.gets).toBe(0); // the writer's isolate answers from memory
    expect(cachedAnswer(entry, "pubmed", now)?.totalCount).toBe(20);
    expect(cachedAnswer(entry, "crossref", now)?.studies).toHaveLength(3);
    expect(cachedAnswer(entry, "doaj", now)).toBeNull();
  });

  it("adds a later search's databases to the entry and drops answers older than the TTL", async () => {
    const kv = fakeKv();
    const key = `search:test:${crypto.randomUUID()}`;
    const t0 = Date.now();
    await writeSearchCache(kv, key, null, answers([["pubmed", result(1)]]), t0);
    const first = await readSearchCache(kv, key, t0 + 1_000);
    await writeSearchCache(kv, key, first, answers([["doaj", result(4)]]), t0 + 2_000);
    const both = JSON.parse(kv.data.get(key)!) as { providers: Record<string, { at: number }> };
    expect(Object.keys(both.providers).sort()).toEqual(["doaj", "pubmed"]);
    const late = t0 + SEARCH_CACHE_TTL_SECONDS * 1000 + 500;
    expect(cachedAnswer(await readSearchCache(kv, key, t0 + 2_000), "pubmed", late)).toBeNull();
    await writeSearchCache(
      kv,
      key,
      await readSearchCache(kv, key, t0 + 2_000),
      answers([["crossref", result(1)]]),
      late,
    );
    const pruned = JSON.parse(kv.data.get(key)!) as { providers: Record<string, unknown> };
    expect(Object.keys(pruned.providers).sort()).toEqual(["crossref", "doaj"]);
  });

  it("answers a hot key from memory for a minute, then reads KV again", async () => {
    const kv = fakeKv();
    const key = `search:test:${crypto.randomUUID()}`;
    const now = Date.now();
    kv.data.set(key, JSON.stringify({ providers: { pubmed: { result: result(3), at: now } } }));
    const first = await readSearchCache(kv, key, now);
    expect(cachedAnswer(first, "pubmed", now)?.studies).toHaveLength(3);
    expect(kv.gets).toBe(1);
    const second = await readSearchCache(kv, key, now + 59_000);
    expect(second).toBe(first);
    expect(kv.gets).toBe(1);
    await readSearchCache(kv, key, now + 61_000);
    expect(kv.gets).toBe(2);
  });

  it("a miss or a malformed entry is null", async () => {
    const kv = fakeKv();
    expect(await readSearchCache(kv, `search:test:${crypto.randomUUID()}`)).toBeNull();
    for (const bad of [
      { foo: 1 },
      { providers: { pubmed: { result: { studies: "x" }, at: 1 } } },
      { providers: { pubmed: { result: result(1) } } },
    ]) {
      const key = `search:test:${crypto.randomUUID()}`;
      kv.data.set(key, JSON.stringify(bad));
      expect(await readSearchCache(kv, key)).toBeNull();
    }
  });

  it("keeps at most 4,000 records in memory, forgetting the oldest entries first", async () => {
    const kv = fakeKv();
    const keys = Array.from({ length: 5 }, () => `search:test:${crypto.randomUUID()}`);
    for (const key of keys)
      await writeSearchCache(
        kv,
        key,
        null,
        answers([
          ["pubmed", result(600)],
          ["crossref", result(400)],
        ]),
      );
    await readSearchCache(kv, keys[0]!);
    expect(kv.gets).toBe(1); // the oldest was forgotten; KV still has it
    await readSearchCache(kv, keys[4]!);
    expect(kv.gets).toBe(1);
  });
});
