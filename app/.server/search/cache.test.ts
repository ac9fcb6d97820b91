import { describe, expect, it } from "vitest";
import { readCachedSearch, writeCachedSearch } from "./cache";
import type { ProviderResult } from "./types";

/** A KV namespace in memory that counts its reads. */
function fakeKv() {
  const data = new Map<string, string>();
  const kv = {
    gets: 0,
    async get(key: string) {
      kv.gets++;
      const text = data.get(key);
      return text === undefined ? null : (JSON.parse(text) as unknown);
    },
    async put(key: string, value: string) {
      data.set(key, value);
    },
    data,
  };
  return kv;
}

const result = (n: number): ProviderResult => ({
  studies: Array.from({ length: n }, (_, i) => ({ title: `Study ${i}` }) as ProviderResult["studies"][number]),
  totalCount: n * 10,
});

describe("search cache: isolate memory tier in front of KV", () => {
  it("answers a hot key from memory for a minute, then reads KV again", async () => {
    const kv = fakeKv();
    const key = `search:test:${crypto.randomUUID()}`;
    kv.data.set(key, JSON.stringify(result(3)));
    const now = Date.now();
    const first = await readCachedSearch(kv as unknown as KVNamespace, key, now);
    expect(first?.studies).toHaveLength(3);
    expect(kv.gets).toBe(1);
    const second = await readCachedSearch(kv as unknown as KVNamespace, key, now + 59_000);
    expect(second).toBe(first);
    expect(kv.gets).toBe(1);
    await readCachedSearch(kv as unknown as KVNamespace, key, now + 61_000);
    expect(kv.gets).toBe(2);
  });

  it("a written answer is read back without a KV read; a miss or a malformed entry is null", async () => {
    const kv = fakeKv();
    const key = `search:test:${crypto.randomUUID()}`;
    await writeCachedSearch(kv as unknown as KVNamespace, key, result(2));
    expect(kv.data.has(key)).toBe(true);
    expect((await readCachedSearch(kv as unknown as KVNamespace, key))?.totalCount).toBe(20);
    expect(kv.gets).toBe(0);
    expect(await readCachedSearch(kv as unknown as KVNamespace, `search:test:${crypto.randomUUID()}`)).toBeNull();
    const bad = `search:test:${crypto.randomUUID()}`;
    kv.data.set(bad, JSON.stringify({ foo: 1 }));
    expect(await readCachedSearch(kv as unknown as KVNamespace, bad)).toBeNull();
  });

  it("keeps at most 4,000 records in memory, forgetting the oldest answers first", async () => {
    const kv = fakeKv();
    const keys = Array.from({ length: 5 }, () => `search:test:${crypto.randomUUID()}`);
    for (const key of keys) await writeCachedSearch(kv as unknown as KVNamespace, key, result(1_000));
    await readCachedSearch(kv as unknown as KVNamespace, keys[0]!);
    expect(kv.gets).toBe(1); // the oldest was forgotten; KV still has it
    await readCachedSearch(kv as unknown as KVNamespace, keys[4]!);
    expect(kv.gets).toBe(1);
  });
});
