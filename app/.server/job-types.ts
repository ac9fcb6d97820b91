import type { AppServices } from "./context";

/** Delivery facts a job handler may use to decide whether a failure is final. */
export interface JobAttempt {
  /** 1 on first delivery. */
  attempts: number;
  /** True when the queue will not redeliver after this attempt (handler must record the failure). */
  isLastAttempt: boolean;
}

/**
 * A queue job handler. Throw to have the message retried (with backoff) until the last attempt;
 * on the last attempt the handler itself must record why the job failed before throwing.
 */
export type JobHandler = (body: unknown, app: AppServices, attempt: JobAttempt) => Promise<void>;
