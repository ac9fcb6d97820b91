/**
 * A local fake of the Resend and Postmark e-mail APIs (their documented request and answer shapes):
 * `POST /emails` (Resend, Bearer key) → `{id}`; `POST /email` (Postmark, X-Postmark-Server-Token)
 * → `{To, SubmittedAt, MessageID, ErrorCode: 0, Message: "OK"}`. A wrong key is 401/422 as the
 * providers answer. Every accepted message is kept in `sent`.
 */
export interface FakeEmailApi {
  fetch: typeof fetch;
  sent: { provider: "resend" | "postmark"; body: Record<string, unknown> }[];
}

export function fakeEmailApi(key: string): FakeEmailApi {
  const sent: FakeEmailApi["sent"] = [];
  const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = (await request.json()) as Record<string, unknown>;
    if (url.pathname.endsWith("/emails")) {
      if (request.headers.get("Authorization") !== `Bearer ${key}`) {
        return Response.json(
          { statusCode: 401, name: "missing_api_key", message: "Missing API key in the authorization header." },
          { status: 401 },
        );
      }
      sent.push({ provider: "resend", body });
      return Response.json({ id: crypto.randomUUID() });
    }
    if (url.pathname.endsWith("/email")) {
      if (request.headers.get("X-Postmark-Server-Token") !== key) {
        return Response.json(
          {
            ErrorCode: 10,
            Message: "The Server Token you provided in the X-Postmark-Server-Token request header was invalid.",
          },
          { status: 401 },
        );
      }
      sent.push({ provider: "postmark", body });
      return Response.json({
        To: body.To,
        SubmittedAt: new Date().toISOString(),
        MessageID: crypto.randomUUID(),
        ErrorCode: 0,
        Message: "OK",
      });
    }
    return new Response("not found", { status: 404 });
  }) as typeof fetch;
  return { fetch: fetchFn, sent };
}
