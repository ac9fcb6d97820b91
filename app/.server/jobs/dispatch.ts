import type { AppServices } from "../context";
import { metaAnalysisJobHandler } from "../meta-analysis/queue";
import { pdfExtractJobHandler } from "../uploads/queue";
import type { JobHandler } from "../job-types";

/** Attempts per message; matches `max_retries = 3` in wrangler.toml (1 delivery + 3 retries). */
export const MAX_JOB_ATTEMPTS = 4;

/** Queue message kinds and their handlers. */
export const jobHandlers: Record<string, JobHandler> = {
  "meta-analysis": metaAnalysisJobHandler,
  "pdf-extract": pdfExtractJobHandler,
};

/**
 * Consumes one batch of the `metamind-jobs` queue: each message goes to the handler of its `kind`.
 * A handler that throws gets the message retried with exponential backoff (2, 4, 8 s) until the
 * last attempt; unknown kinds are acknowledged and dropped with a log line.
 */
export async function dispatchJobs(batch: MessageBatch<unknown>, app: AppServices): Promise<void> {
  for (const message of batch.messages) {
    const body = message.body as { kind?: unknown } | null;
    const kind = typeof body?.kind === "string" ? body.kind : "";
    const handler = jobHandlers[kind];
    if (!handler) {
      console.warn(`queue: dropping message ${message.id} of unknown kind "${kind}"`);
      message.ack();
      continue;
    }
    const isLastAttempt = message.attempts >= MAX_JOB_ATTEMPTS;
    try {
      await handler(body, app, { attempts: message.attempts, isLastAttempt });
      message.ack();
    } catch (error) {
      console.warn(
        `queue: ${kind} job failed (attempt ${message.attempts}):`,
        error instanceof Error ? error.message : error,
      );
      if (isLastAttempt) message.ack();
      else message.retry({ delaySeconds: 2 ** message.attempts });
    }
  }
}
