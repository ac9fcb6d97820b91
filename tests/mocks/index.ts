/**
 * Offline stand-ins for the six upstream literature APIs, built from the real recordings in
 * ../shared/fixtures/providers. `createReplayFetch` is a drop-in `fetch` for ProviderDeps;
 * tests/mocks/replay-server.ts serves the same answers over HTTP.
 * Erasable TypeScript only (runs under plain Node).
 */
import type { ProviderId } from "../../app/.server/search/types.ts";
import { createCoreReplay } from "./core.ts";
import { createCrossrefReplay } from "./crossref.ts";
import { createDoajReplay } from "./doaj.ts";
import { createEuropePmcReplay } from "./europepmc.ts";
import { createPubmedReplay } from "./pubmed.ts";
import type { FixtureReader, Replay } from "./replay-utils.ts";
import { createSemanticScholarReplay } from "./semanticscholar.ts";

export type { FixtureReader, Replay } from "./replay-utils.ts";
export { EMPTY_WORD, FAIL_WORD, SLOW_WORD } from "./replay-utils.ts";
export { CORE_REPLAY_FIXTURES, createCoreReplay } from "./core.ts";
export { CROSSREF_REPLAY_FIXTURES, createCrossrefReplay } from "./crossref.ts";
export { DOAJ_REPLAY_FIXTURES, createDoajReplay } from "./doaj.ts";
export { EUROPEPMC_REPLAY_FIXTURES, createEuropePmcReplay } from "./europepmc.ts";
export { PUBMED_REPLAY_FIXTURES, createPubmedReplay } from "./pubmed.ts";
export { SEMANTICSCHOLAR_REPLAY_FIXTURES, createSemanticScholarReplay } from "./semanticscholar.ts";

/** Providers in routing order (mirrors PROVIDER_IDS without importing runtime app code). */
export const REPLAY_PROVIDERS: readonly ProviderId[] = [
  "pubmed",
  "crossref",
  "europepmc",
  "core",
  "semanticscholar",
  "doaj",
];

/** Where tests/mocks/replay-server.ts listens by default. */
export const DEFAULT_REPLAY_ORIGIN = "http://127.0.0.1:8788";

/** Base URLs that route to the replays: `${origin}/pubmed`, `${origin}/crossref`, … */
export function defaultReplayBaseUrls(origin: string = DEFAULT_REPLAY_ORIGIN): Record<ProviderId, string> {
  const root = origin.replace(/\/+$/, "");
  const urls = {} as Record<ProviderId, string>;
  for (const id of REPLAY_PROVIDERS) urls[id] = `${root}/${id}`;
  return urls;
}

export interface ReplayOptions {
  /** Base URL per provider; missing entries use {@link defaultReplayBaseUrls}. */
  baseUrls?: Partial<Record<ProviderId, string>>;
}

/** One routed answer: which provider's prefix matched (null → 404) and the response. */
export interface ReplayAnswer {
  provider: ProviderId | null;
  response: Response;
}

const FACTORIES: Record<ProviderId, (fixtures: FixtureReader) => Replay> = {
  pubmed: createPubmedReplay,
  crossref: createCrossrefReplay,
  europepmc: createEuropePmcReplay,
  core: createCoreReplay,
  semanticscholar: createSemanticScholarReplay,
  doaj: createDoajReplay,
};

function notFound(url: string): Response {
  return new Response(`replay: no recording for ${url}`, {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

/**
 * Synchronous router: finds the provider whose base URL prefixes the request URL (prefix followed
 * by "/", "?" or the end) and asks its replay. Unknown prefix or unhandled path → 404.
 */
export function createReplayHandler(
  fixtures: FixtureReader,
  opts: ReplayOptions = {},
): (request: Request) => ReplayAnswer {
  const defaults = defaultReplayBaseUrls();
  const routes = REPLAY_PROVIDERS.map((id) => ({
    id,
    prefix: (opts.baseUrls?.[id] ?? defaults[id]).replace(/\/+$/, ""),
    replay: FACTORIES[id](fixtures),
  }));
  return (request) => {
    const url = request.url;
    for (const route of routes) {
      if (!url.startsWith(route.prefix)) continue;
      const next = url.charAt(route.prefix.length);
      if (next !== "" && next !== "/" && next !== "?") continue;
      return { provider: route.id, response: route.replay(request) ?? notFound(url) };
    }
    return { provider: null, response: notFound(url) };
  };
}

/**
 * A `fetch` replacement answering every provider request from the recordings (see each
 * create*Replay for which file is served and the zzfail/zzempty trigger words). Requests outside
 * the configured base URLs get 404.
 */
export function createReplayFetch(
  fixtures: FixtureReader,
  opts: ReplayOptions = {},
): (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> {
  const handle = createReplayHandler(fixtures, opts);
  return async (input, init) => {
    const request = input instanceof Request && init === undefined ? input : new Request(input, init);
    return handle(request).response;
  };
}
