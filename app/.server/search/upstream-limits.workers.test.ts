import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createReplayFetch } from "../../../tests/mocks/index.ts";
import {
  hasWorkerFixtures,
  MISSING_WORKER_FIXTURES,
  workerFixtureReader,
} from "../../../tests/mocks/workers-fixtures.ts";
import { ensureDemoAccounts } from "../auth/demo-accounts";
import { getLoadContext } from "../context";
import { parseEnv } from "../env";
import { NO_FILTERS } from "./filters";
import { searchStudies } from "./service";
import type { ProviderId } from "./types";

const SIX: ProviderId[] = ["pubmed", "crossref", "europepmc", "core", "semanticscholar", "doaj"];
type FetchFn = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

const baseUrls = () => {
  const e = parseEnv(env as unknown as Record<string, unknown>);
  return {
    pubmed: e.PUBMED_BASE_URL,
    crossref: e.CROSSREF_BASE_URL,
    europepmc: e.EUROPEPMC_BASE_URL,
    core: e.CORE_BASE_URL,
    semanticscholar: e.SEMANTIC_SCHOLAR_BASE_URL,
    doaj: e.DOAJ_BASE_URL,
  } satisfies Record<ProviderId, string>;
};

function app(overrides: Record<string, unknown>, fetchImpl: FetchFn) {
  const raw = { ...(env as unknown as Record<string, unknown>), ...overrides };
  return { ...getLoadContext(raw as never, { waitUntil: () => {} }).app, fetch: fetchImpl as typeof fetch };
}

/** The replayed recordings, except that `provider` answers with `answer()`. */
function replacing(provider: ProviderId, answer: () => Response): FetchFn {
  const replay = createReplayFetch(workerFixtureReader, { baseUrls: baseUrls() });
  const prefix = baseUrls()[provider];
  return async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    return url.startsWith(prefix) ? answer() : replay(input, init);
  };
}

/** A 200 answer that would stream `totalBytes` of JSON-ish text, made chunk by chunk when pulled. */
function endlessAnswer(totalBytes: number, state: { produced: number; cancelled: boolean }): Response {
  const chunk = new TextEncoder().encode(`{"pad":"${"x".repeat(64 * 1024 - 10)}"},`);
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (state.produced >= totalBytes) return controller.close();
        state.produced += chunk.byteLength;
        controller.enqueue(chunk);
      },
      cancel() {
        state.cancelled = true;
      },
    }),
    { status: 200, headers: { "content-type": "application/json" } },
  );
}

const json = (body: unknown) => () =>
  new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });

async function searchAll(query: string, fetchImpl: FetchFn, overrides: Record<string, unknown> = {}) {
  const pro = await env.DB.prepare("SELECT * FROM users WHERE email = 'pro@metamind.local'").first();
  return searchStudies(app({ CORE_API_KEY: "test-key", ...overrides }, fetchImpl), pro as never, {
    query,
    page: 1,
    limit: 25,
    providers: SIX,
    filters: NO_FILTERS,
  });
}

const suite = hasWorkerFixtures ? describe : describe.skip;

suite(
  hasWorkerFixtures ? "upstream answers are read with a byte cap" : `upstream limits — ${MISSING_WORKER_FIXTURES}`,
  () => {
    beforeAll(async () => {
      await ensureDemoAccounts(getLoadContext(env as never, { waitUntil: () => {} }).app);
    });

    it.each(SIX)(
      "an oversized %s answer is reported failed 'answer too large'; the others still answer",
      async (provider) => {
        const state = { produced: 0, cancelled: false };
        const cap = 1024 * 1024;
        const result = await searchAll(
          `oversized answer ${provider}`,
          replacing(provider, () => endlessAnswer(200 * 1024 * 1024, state)),
          { UPSTREAM_MAX_BYTES: String(cap) },
        );
        expect(result.providers[provider]).toMatchObject({ status: "failed", error: "answer too large", count: 0 });
        expect(state.cancelled).toBe(true);
        expect(state.produced).toBeLessThanOrEqual(cap + 2 * 64 * 1024);
        for (const other of SIX.filter((id) => id !== provider)) {
          expect(result.providers[other]?.status, other).toBe("ok");
        }
        expect(result.studies.length).toBeGreaterThan(0);
      },
    );

    const garbage: [ProviderId, string, () => Response][] = [
      [
        "semanticscholar",
        "an HTML page",
        () =>
          new Response("<html><body>Gateway</body></html>", { status: 200, headers: { "content-type": "text/html" } }),
      ],
      ["semanticscholar", '{"foo":1}', json({ foo: 1 })],
      ["semanticscholar", "a bare list", json([])],
      ["semanticscholar", "records that are not papers", json({ total: 3, offset: 0, data: [{ x: 1 }, { y: 2 }, 3] })],
      ["semanticscholar", "hits without records", json({ total: 120, offset: 0 })],
      [
        "crossref",
        "items that are not works",
        json({ status: "ok", "message-type": "work-list", message: { "total-results": 2, items: [{}, { foo: 1 }] } }),
      ],
      ["europepmc", "hits without a resultList", json({ hitCount: 57 })],
      ["europepmc", "results that are not records", json({ hitCount: 2, resultList: { result: [{ foo: 1 }, 7] } })],
      ["core", "results that are not works", json({ totalHits: 2, results: [{ foo: 1 }, {}] })],
      ["doaj", "results that are not articles", json({ total: 2, results: [{ foo: 1 }, {}] })],
      ["pubmed", "an esearch answer without a count", json({ esearchresult: { foo: 1 } })],
    ];
    it.each(garbage)(
      "a garbage %s answer (%s) is reported failed, not 'ok, 0 results'",
      async (provider, label, answer) => {
        const result = await searchAll(`garbage ${provider} ${label}`, replacing(provider, answer));
        expect(result.providers[provider]).toMatchObject({ status: "failed", count: 0 });
        expect(result.providers[provider]?.error).toBeTruthy();
        for (const other of SIX.filter((id) => id !== provider)) {
          expect(result.providers[other]?.status, other).toBe("ok");
        }
      },
    );

    it("PubMed efetch answering none of the requested records is reported failed", async () => {
      const replay = createReplayFetch(workerFixtureReader, { baseUrls: baseUrls() });
      const fetchImpl: FetchFn = async (input, init) => {
        const url = String(input instanceof Request ? input.url : input);
        if (url.includes("/efetch.fcgi")) return new Response("<PubmedArticleSet></PubmedArticleSet>", { status: 200 });
        return replay(input, init);
      };
      const result = await searchAll("efetch garbage", fetchImpl);
      expect(result.providers.pubmed).toMatchObject({ status: "failed" });
      expect(result.providers.pubmed?.error).toMatch(/none of the \d+ requested records/);
    });
  },
);
