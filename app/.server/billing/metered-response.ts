import type { Reservation } from "./metering";

/** `base` plus the reservation's Set-Cookie headers and X-AI-Uses-Remaining (unless unlimited). */
export function reservationHeaders(reservation: Reservation | null, base: HeadersInit): Headers {
  const headers = new Headers(base);
  if (!reservation) return headers;
  for (const cookie of reservation.headers.getSetCookie()) headers.append("Set-Cookie", cookie);
  if (reservation.remaining !== null) headers.set("X-AI-Uses-Remaining", String(reservation.remaining));
  return headers;
}

/**
 * The same streaming response with `headers`, whose body calls `settle` once it ends in any way
 * (closed, errored, or cancelled by the client). A metered action that succeeded has stored and
 * committed its result before the body closes, so `settle` only releases uses that produced
 * nothing.
 */
export function withSettledBody(response: Response, headers: Headers, settle: () => void): Response {
  const source = response.body;
  if (!source) {
    settle();
    return new Response(null, { status: response.status, headers });
  }
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          settle();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        settle();
        controller.error(error);
      }
    },
    async cancel(reason) {
      settle();
      await reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers });
}
