import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { MetaStudy } from "./meta-selection";

class MemoryStorage implements Storage {
  private data = new Map<string, string>();
  failWrites = false;
  get length() {
    return this.data.size;
  }
  clear() {
    this.data.clear();
  }
  getItem(key: string) {
    return this.data.get(key) ?? null;
  }
  key(index: number) {
    return [...this.data.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.data.delete(key);
  }
  setItem(key: string, value: string) {
    if (this.failWrites) throw new Error("QuotaExceededError");
    this.data.set(key, value);
  }
}

const study = (id: number, extra: Record<string, unknown> = {}): MetaStudy =>
  ({
    id,
    title: `Study ${id}`,
    authors: ["Smith J"],
    journal: "BMJ",
    publicationDate: "2024-01-01",
    doi: `10.1/${id}`,
    pmid: null,
    abstract: "An abstract.",
    fullTextAnalysis: null,
    source: "pubmed",
    ...extra,
  }) as MetaStudy;

let store: MemoryStorage;
let win: EventTarget;

async function load() {
  vi.resetModules();
  return import("./meta-selection");
}

beforeEach(() => {
  store = new MemoryStorage();
  win = new EventTarget();
  vi.stubGlobal("localStorage", store);
  vi.stubGlobal("window", win);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("meta selection", () => {
  it("adds, toggles, removes and clears, persisting only the stored fields", async () => {
    const m = await load();
    m.addStudy(study(1, { aiSummary: "long text", relevanceScore: 9 }));
    m.addStudy(study(1));
    expect(m.toggleStudy(study(2))).toBe(true);
    expect(m.getSelection().map((s) => s.id)).toEqual([1, 2]);
    expect(m.isSelected(2)).toBe(true);
    const stored = JSON.parse(store.getItem(m.META_SELECTION_KEY)!);
    expect(stored[0]).toEqual(study(1));
    m.addStudy(study(9, { fullTextAnalysis: "### Outcomes\nRR 0.75 (95% CI 0.60 to 0.93)." }));
    expect(m.getSelection().find((s) => s.id === 9)?.fullTextAnalysis).toContain("RR 0.75");
    m.removeStudy(9);
    expect(m.toggleStudy(study(2))).toBe(false);
    m.removeStudy(1);
    expect(m.getSelection()).toEqual([]);
    expect(store.getItem(m.META_SELECTION_KEY)).toBeNull();
    m.addStudy(study(3));
    m.clearSelection();
    expect(m.getSelection()).toEqual([]);
  });

  it("survives a reload and ignores corrupt or invalid entries", async () => {
    store.setItem("metamind:meta-selection:v1", JSON.stringify([study(5), { id: "x" }, study(5), null, study(6)]));
    expect((await load()).getSelection().map((s) => s.id)).toEqual([5, 6]);
    store.setItem("metamind:meta-selection:v1", "{not json");
    vi.spyOn(console, "warn").mockImplementation(() => {});
    expect((await load()).getSelection()).toEqual([]);
  });

  it("returns a stable snapshot and notifies subscribers on change", async () => {
    const m = await load();
    const first = m.getSelection();
    expect(m.getSelection()).toBe(first);
    const listener = vi.fn();
    const unsubscribe = m.subscribe(listener);
    m.addStudy(study(1));
    expect(listener).toHaveBeenCalledTimes(1);
    expect(m.getSelection()).not.toBe(first);
    unsubscribe();
    m.addStudy(study(2));
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("picks up changes made in another tab", async () => {
    const m = await load();
    const listener = vi.fn();
    m.subscribe(listener);
    expect(m.getSelection()).toEqual([]);
    store.setItem(m.META_SELECTION_KEY, JSON.stringify([study(9)]));
    win.dispatchEvent(Object.assign(new Event("storage"), { key: m.META_SELECTION_KEY }));
    expect(listener).toHaveBeenCalledTimes(1);
    expect(m.isSelected(9)).toBe(true);
    win.dispatchEvent(Object.assign(new Event("storage"), { key: "unrelated" }));
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("keeps working in memory when storage refuses writes or is missing", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    store.failWrites = true;
    const m = await load();
    m.addStudy(study(1));
    expect(m.isSelected(1)).toBe(true);
    vi.stubGlobal("localStorage", undefined);
    const fresh = await load();
    fresh.addStudy(study(2));
    expect(fresh.getSelection().map((s) => s.id)).toEqual([2]);
  });
});
