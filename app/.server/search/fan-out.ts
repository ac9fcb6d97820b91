import {
  ProviderError,
  type NormalizedStudy,
  type ProviderDeps,
  type ProviderId,
  type ProviderSearchParams,
  type SearchProvider,
} from "./types";

export type ProviderStatus = "ok" | "failed" | "timeout" | "unavailable";

/** How one database fared in one search (reported to the client as `providers[id]`). */
export interface ProviderReport {
  status: ProviderStatus;
  /** Records this provider returned for the page (0 unless ok). */
  count: number;
  /** Hits the provider reports in total for the query (0 unless ok). */
  totalCount: number;
  /** Wall time of the provider call in milliseconds. */
  ms: number;
  /** Human-readable reason when status is not ok. */
  error: string | null;
}

export interface ProviderOutcome extends ProviderReport {
  provider: ProviderId;
  studies: NormalizedStudy[];
}

export interface FanOutTask {
  provider: SearchProvider;
  deps: Omit<ProviderDeps, "signal">;
}

/**
 * Runs several providers in parallel, each under its own timeout, and never rejects: a provider
 * that throws is reported `failed` (or `unavailable` for a ProviderError of kind unavailable), one
 * that exceeds `timeoutMs` is aborted and reported `timeout`. The caller waits for the slowest
 * provider or the timeout, whichever comes first. `onSettled` fires as each provider finishes.
 *
 * @param timeoutMs per-provider budget in milliseconds (SEARCH_TIMEOUT_MS, 8000 by default).
 * @returns one outcome per task, in task order.
 */
export async function fanOutSearch(
  tasks: FanOutTask[],
  params: ProviderSearchParams,
  options: { timeoutMs: number; now?: () => number; onSettled?: (o: ProviderOutcome) => void },
): Promise<ProviderOutcome[]> {
  const now = options.now ?? (() => performance.now());
  return Promise.all(
    tasks.map(async ({ provider, deps }): Promise<ProviderOutcome> => {
      const started = now();
      const controller = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => {
          controller.abort(new Error(`timed out after ${options.timeoutMs} ms`));
          resolve("timeout");
        }, options.timeoutMs);
      });
      let outcome: ProviderOutcome;
      try {
        const result = await Promise.race([
          provider.search({ ...deps, signal: controller.signal }, params),
          timedOut,
        ]);
        const ms = Math.round(now() - started);
        if (result === "timeout") {
          outcome = failure(provider.id, "timeout", ms, `No answer within ${options.timeoutMs} ms`);
        } else {
          // A provider never contributes more than the page size, even if it ignores the limit.
          const studies = result.studies.slice(0, params.limit);
          outcome = {
            provider: provider.id,
            status: "ok",
            count: studies.length,
            totalCount: result.totalCount,
            ms,
            error: null,
            studies,
          };
        }
      } catch (error) {
        const ms = Math.round(now() - started);
        if (controller.signal.aborted) {
          outcome = failure(provider.id, "timeout", ms, `No answer within ${options.timeoutMs} ms`);
        } else if (error instanceof ProviderError && error.kind === "unavailable") {
          outcome = failure(provider.id, "unavailable", ms, error.message);
        } else {
          outcome = failure(provider.id, "failed", ms, errorText(error));
        }
      } finally {
        clearTimeout(timer);
      }
      options.onSettled?.(outcome);
      return outcome;
    }),
  );
}

function failure(
  provider: ProviderId,
  status: Exclude<ProviderStatus, "ok">,
  ms: number,
  error: string,
): ProviderOutcome {
  return { provider, status, count: 0, totalCount: 0, ms, error, studies: [] };
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
