import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fixtureResponse, fixtureSuiteName, hasSharedFixtures, recordingFetch } from "../../../../tests/fixtures";
import { PROVIDER_IDS, ProviderError, type ProviderDeps, type ProviderId } from "../types";
import { fetchText, RETRY_MARGIN_MS, retryAfterMs } from "./http";
import { PROVIDERS } from "./index";

const NOW = Date.parse("2025-03-15T12:00:00Z");
const URL_ = "https://api.example.test/works?query=x";

function tooMany(retryAfter?: string): Response {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (retryAfter !== undefined) headers["retry-after"] = retryAfter;
  return new Response('{"error":"API rate limit exceeded","count":"26","limit":"3"}', { status: 429, headers });
}

const deps = (fetch: typeof globalThis.fetch, extra: Partial<ProviderDeps> = {}): ProviderDeps => ({
  fetch,
  baseUrl: "https://api.example.test",
  ...extra,
});

describe("retryAfterMs", () => {
  it("reads delay-seconds", () => {
    expect(retryAfterMs("120", NOW)).toBe(120_000);
    expect(retryAfterMs(" 0 ", NOW)).toBe(0);
  });

  it("reads an HTTP-date relative to now, floored at 0", () => {
    expect(retryAfterMs("Sat, 15 Mar 2025 12:00:03 GMT", NOW)).toBe(3000);
    expect(retryAfterMs("Sat, 15 Mar 2025 11:59:00 GMT", NOW)).toBe(0);
  });

  it("returns null for absent or unreadable values", () => {
    for (const value of [null, "", "1.5", "-1", "soon", "12abc"])
      expect(retryAfterMs(value, NOW), String(value)).toBeNull();
  });
});

describe("fetchText on HTTP 429", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits Retry-After seconds and retries once when the wait fits before the deadline", async () => {
    const fake = recordingFetch((_call, index) => (index === 0 ? tooMany("2") : new Response("ok body")));
    const pending = fetchText("crossref", deps(fake.fetch, { deadline: NOW + 2000 + RETRY_MARGIN_MS }), URL_);
    await vi.advanceTimersByTimeAsync(1999);
    expect(fake.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(pending).resolves.toBe("ok body");
    expect(fake.calls).toHaveLength(2);
    expect(fake.calls[1].url).toBe(URL_);
  });

  it("does not retry when the wait plus the 200 ms margin passes the deadline", async () => {
    const fake = recordingFetch(() => tooMany("2"));
    const error = await fetchText(
      "crossref",
      deps(fake.fetch, { deadline: NOW + 2000 + RETRY_MARGIN_MS - 1 }),
      URL_,
    ).catch((e: unknown) => e);
    expect(fake.calls).toHaveLength(1);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: "crossref", kind: "http", status: 429 });
    expect((error as Error).message).toBe(
      "429: rate limit exceeded (Retry-After: 2); not retried: the wait does not fit before the search deadline",
    );
    expect(vi.getTimerCount()).toBe(0);
  });

  it("understands the HTTP-date form", async () => {
    const fake = recordingFetch((_call, index) =>
      index === 0 ? tooMany("Sat, 15 Mar 2025 12:00:03 GMT") : new Response("later"),
    );
    const pending = fetchText("semanticscholar", deps(fake.fetch, { deadline: NOW + 8000 }), URL_);
    await vi.advanceTimersByTimeAsync(2999);
    expect(fake.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(pending).resolves.toBe("later");
    expect(fake.calls).toHaveLength(2);

    const far = recordingFetch(() => tooMany("Sat, 15 Mar 2025 12:01:00 GMT"));
    await expect(fetchText("semanticscholar", deps(far.fetch, { deadline: NOW + 8000 }), URL_)).rejects.toMatchObject({
      status: 429,
      message: expect.stringContaining("Retry-After: Sat, 15 Mar 2025 12:01:00 GMT"),
    });
    expect(far.calls).toHaveLength(1);
  });

  it("re-throws the abort reason when the signal aborts during the wait, without retrying", async () => {
    const controller = new AbortController();
    const fake = recordingFetch(() => tooMany("3"));
    const pending = fetchText("doaj", deps(fake.fetch, { deadline: NOW + 8000, signal: controller.signal }), URL_);
    const settled = pending.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1000);
    const reason = new Error("timed out after 8000 ms");
    controller.abort(reason);
    expect(await settled).toBe(reason);
    await vi.advanceTimersByTimeAsync(5000);
    expect(fake.calls).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not wait when the signal is already aborted", async () => {
    const controller = new AbortController();
    const fake = recordingFetch(() => {
      controller.abort();
      return tooMany("1");
    });
    const error = await fetchText(
      "doaj",
      deps(fake.fetch, { deadline: NOW + 8000, signal: controller.signal }),
      URL_,
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "AbortError" });
    expect(fake.calls).toHaveLength(1);
  });

  it("retries at most once", async () => {
    const fake = recordingFetch(() => tooMany("1"));
    const pending = fetchText("pubmed", deps(fake.fetch, { deadline: NOW + 8000 }), URL_).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1000);
    const error = await pending;
    expect(fake.calls).toHaveLength(2);
    expect(error).toMatchObject({
      kind: "http",
      status: 429,
      message: "429: rate limit exceeded (Retry-After: 1); still rate limited after one retry",
    });
  });

  it("does not retry without a Retry-After or without a deadline", async () => {
    const bare = recordingFetch(() => tooMany());
    await expect(fetchText("core", deps(bare.fetch, { deadline: NOW + 8000 }), URL_)).rejects.toMatchObject({
      status: 429,
      message: "429: rate limit exceeded (no Retry-After); not retried",
    });
    expect(bare.calls).toHaveLength(1);

    const noDeadline = recordingFetch(() => tooMany("0"));
    await expect(fetchText("core", deps(noDeadline.fetch), URL_)).rejects.toMatchObject({ status: 429 });
    expect(noDeadline.calls).toHaveLength(1);
  });

  it("retries immediately on Retry-After: 0 and maps a later non-429 failure as usual", async () => {
    const fake = recordingFetch((_call, index) =>
      index === 0 ? tooMany("0") : new Response("Service Unavailable", { status: 503 }),
    );
    await expect(fetchText("europepmc", deps(fake.fetch, { deadline: NOW + 1000 }), URL_)).rejects.toMatchObject({
      status: 503,
      message: "503: Service Unavailable",
    });
    expect(fake.calls).toHaveLength(2);
  });
});

const suite = hasSharedFixtures() ? describe : describe.skip;

suite(fixtureSuiteName("every provider retries a 429 through fetchText"), () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const recorded: Record<ProviderId, (url: string) => Response> = {
    pubmed: (url) =>
      fixtureResponse(
        url.includes("/esearch.fcgi")
          ? "pubmed/esearch_pubmed_biopython.xml"
          : "pubmed/efetch_pubmed_11748933_11700088.xml",
      ),
    crossref: () => fixtureResponse("crossref/search_query-ecology_rows2.json"),
    europepmc: () => fixtureResponse("europepmc/search_core_COVID-19_pageSize25.json"),
    core: () => fixtureResponse("core/v2_search_ecology_page1_pageSize10.json"),
    semanticscholar: () => fixtureResponse("semanticscholar/search_kubernetes.json"),
    doaj: () => fixtureResponse("doaj/v2_search_articles_license-CC-BY_pageSize10.json"),
  };

  for (const id of PROVIDER_IDS) {
    it(`${id}: the rate-limited request is repeated after Retry-After`, async () => {
      // PubMed is limited on its second request (the efetch POST) to check the form body is re-sent.
      const limited = id === "pubmed" ? 1 : 0;
      const fake = recordingFetch((call, index) => (index === limited ? tooMany("1") : recorded[id](call.url)));
      const pending = PROVIDERS[id].search(
        {
          fetch: fake.fetch,
          baseUrl: "https://api.example.test",
          apiKey: id === "core" ? "k" : undefined,
          deadline: NOW + 8000,
        },
        { query: "heart", page: 1, limit: 10 },
      );
      await vi.advanceTimersByTimeAsync(1000);
      const result = await pending;
      expect(result.studies.length).toBeGreaterThan(0);
      expect(fake.calls).toHaveLength(limited + 2);
      expect(fake.calls[limited + 1].url).toBe(fake.calls[limited].url);
      expect(fake.calls[limited + 1].method).toBe(fake.calls[limited].method);
      expect(fake.calls[limited + 1].body).toBe(fake.calls[limited].body);
    });
  }
});
