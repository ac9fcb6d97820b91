import { ProviderError, type NormalisedStudy, type ProviderId, type ProviderResult } from "./types";
import type { ProviderReport, ProviderStatus } from "../../lib/search/types";

export type { ProviderReport, ProviderStatus } from "../../lib/search/types";

export interface ProviderOutcome extends ProviderReport {
  provider: ProviderId;
  studies: NormalisedStudy[];
}

/** One provider call: `run` must honour the abort signal; it may report a cache hit. */
export interface FanOutTask {
  provider: ProviderId;
  run: (signal: AbortSignal) => Promise<ProviderResult & { cached?: boolean }>;
}

/**
 * Runs several provider calls in parallel, each under its own timeout, and never rejects: a call
 * that throws is reported `failed` (or `unavailable` for a ProviderError of kind unavailable), one
 * that exceeds `timeoutMs` is aborted and reported `timeout`. The caller waits for the slowest
 * provider or the timeout, whichever comes first. `onSettled` fires as each provider finishes,
 * so results can be shown progressively.
 *
 * @param timeoutMs per-provider budget in milliseconds (SEARCH_TIMEOUT_MS, 8000 by default).
 * @param limit records one provider may contribute (a provider ignoring its limit is cut).
 * @returns one outcome per task, in task order.
 */
export async function fanOutSearch(
  tasks: FanOutTask[],
  options: {
    timeoutMs: number;
    limit: number;
    now?: () => number;
    onSettled?: (o: ProviderOutcome) => void;
  },
): Promise<ProviderOutcome[]> {
  const now = options.now ?? (() => performance.now());
  return Promise.all(
    tasks.map(async ({ provider, run }): Promise<ProviderOutcome> => {
      const started = now();
      const controller = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => {
          controller.abort(new Error(`timed out after ${options.timeoutMs} ms`));
          resolve("timeout");
        }, options.timeoutMs);
      });
      const timeoutText = `No answer within ${options.timeoutMs} ms`;
      let outcome: ProviderOutcome;
      try {
        const result = await Promise.race([run(controller.signal), timedOut]);
        const ms = Math.round(now() - started);
        if (result === "timeout") {
          outcome = failure(provider, "timeout", ms, timeoutText);
        } else {
          const studies = result.studies.slice(0, options.limit);
          outcome = {
            provider,
            status: "ok",
            count: studies.length,
            totalCount: result.totalCount,
            ms,
            cached: result.cached ?? false,
            error: null,
            studies,
          };
        }
      } catch (error) {
        const ms = Math.round(now() - started);
        if (controller.signal.aborted) {
          outcome = failure(provider, "timeout", ms, timeoutText);
        } else if (error instanceof ProviderError && error.kind === "unavailable") {
          outcome = failure(provider, "unavailable", ms, error.message);
        } else {
          outcome = failure(provider, "failed", ms, errorText(error));
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
  return { provider, status, count: 0, totalCount: 0, ms, cached: false, error, studies: [] };
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
