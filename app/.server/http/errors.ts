import { z } from "zod";

/**
 * An error with a stable machine code and an HTTP status, rendered as
 * `{ error: CODE, message, ...extra }`. Route modules throw it; `toResponse` turns it into JSON.
 */
export class AppError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "AppError";
  }

  /**
   * The JSON answer. A 429 carries `Retry-After` (seconds, from `extra.retryAfter`, else 60) and a
   * 405 carries `Allow` (from `extra.allow`) when the caller passes none.
   */
  toResponse(headers?: HeadersInit): Response {
    const all = new Headers(headers);
    if (this.status === 429 && !all.has("Retry-After")) {
      const seconds = typeof this.extra.retryAfter === "number" ? Math.max(1, Math.ceil(this.extra.retryAfter)) : 60;
      all.set("Retry-After", String(seconds));
    }
    if (this.status === 405 && !all.has("Allow") && Array.isArray(this.extra.allow)) {
      all.set("Allow", this.extra.allow.join(", "));
    }
    return Response.json(
      { error: this.code, message: this.message, ...this.extra },
      { status: this.status, headers: all },
    );
  }
}

/** Formats zod issues as one readable sentence ("q: Query is required; page: …"). */
export function describeZodError(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");
}

/**
 * Parses input with a schema; failure is a 400 AppError with code INVALID_INPUT and the zod message.
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new AppError("INVALID_INPUT", describeZodError(result.error), 400);
  }
  return result.data;
}

/**
 * Runs an API handler and converts thrown AppErrors to their JSON responses; anything else is
 * logged with its cause and answered with a generic 500 that leaks nothing.
 */
export async function handleApi(fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof AppError) return error.toResponse();
    if (error instanceof Response) return error;
    console.error("Unhandled API error", error);
    return Response.json({ error: "INTERNAL", message: "Something went wrong. Please try again." }, { status: 500 });
  }
}
