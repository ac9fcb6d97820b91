/**
 * Error thrown by the meta-analysis engine for input it cannot analyse (negative SD, n ≤ 0, events
 * > n, a CI that does not contain its estimate, non-finite numbers, zero variance, too few studies…).
 * `message` is a complete sentence meant to be shown to the user as is.
 */
export class MetaInputError extends Error {
  override name = "MetaInputError";
  /** Index of the offending study in the input array, when the error concerns one study. */
  readonly study: number | null;

  constructor(message: string, study: number | null = null) {
    super(message);
    this.study = study;
  }
}
