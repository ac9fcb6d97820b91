import { describe, expect, it } from "vitest";
import {
  isOfflineQueuedReply,
  offlineQueuedReply,
  OFFLINE_QUEUED_HEADER,
  queuedReplyOf,
  queueForRequest,
  ReplayIncompleteError,
  replayQueue,
  type QueueEntry,
  type ReplayableQueue,
  type ReplayedMessage,
} from "~/browser/offline-sync";

/** workbox-background-sync's Queue in memory: shift from the head, unshift back to the head. */
function memoryQueue(name: string, requests: Request[]): ReplayableQueue & { entries: QueueEntry[] } {
  const entries: QueueEntry[] = requests.map((request, i) => ({ request, timestamp: i }));
  return {
    name,
    entries,
    shiftRequest: async () => entries.shift(),
    unshiftRequest: async (entry) => void entries.unshift(entry),
  };
}

/** A guest's requests (no owner) never ask for the session. */
const notAsked = async (): Promise<string | null> => {
  throw new Error("the session was asked for an owner-less request");
};

const bookmark = (method: string, studyId: number) =>
  new Request("https://metamind.test/api/bookmarks", {
    method,
    body: JSON.stringify({ studyId }),
    headers: { "Content-Type": "application/json" },
  });

describe("queueForRequest", () => {
  it("routes the four offline changes to their SPEC queues and nothing else", () => {
    expect(queueForRequest("POST", "/api/bookmarks")).toBe("bookmark-sync");
    expect(queueForRequest("delete", "/api/bookmarks")).toBe("bookmark-sync");
    expect(queueForRequest("PATCH", "/api/user/settings")).toBe("settings-sync");
    expect(queueForRequest("POST", "/api/upload-pdfs")).toBe("upload-sync");
    expect(queueForRequest("GET", "/api/search")).toBe("search-sync");
    expect(queueForRequest("GET", "/api/bookmarks")).toBeNull();
    expect(queueForRequest("GET", "/api/user/settings")).toBeNull();
    expect(queueForRequest("POST", "/api/saved-reports")).toBeNull();
    expect(queueForRequest("GET", "/api/search/crossref")).toBeNull();
  });

  it("answers changes with 202 and a search with 503, both recognisable by the page", async () => {
    expect(offlineQueuedReply("bookmark-sync").status).toBe(202);
    expect(offlineQueuedReply("search-sync").status).toBe(503);
    const { status, body } = offlineQueuedReply("settings-sync");
    expect(isOfflineQueuedReply(body)).toBe(true);
    expect(isOfflineQueuedReply({ error: "OFFLINE", offline: true, queued: "other" })).toBe(false);
    const tagged = Response.json(body, { status, headers: { [OFFLINE_QUEUED_HEADER]: "settings-sync" } });
    expect(await queuedReplyOf(tagged)).toEqual(body);
    // The same body from the server (no header) is not a service-worker reply.
    expect(await queuedReplyOf(Response.json(body, { status }))).toBeNull();
  });
});

describe("replayQueue", () => {
  it("sends every request oldest first, empties the queue and reports each delivery", async () => {
    const queue = memoryQueue("bookmark-sync", [bookmark("POST", 1), bookmark("DELETE", 2)]);
    const seen: string[] = [];
    const replayed: ReplayedMessage[] = [];
    const sent = await replayQueue(
      queue,
      async (request) => {
        seen.push(`${request.method} ${((await request.json()) as { studyId: number }).studyId}`);
        return Response.json({ ok: true }, { status: request.method === "POST" ? 201 : 200 });
      },
      (m) => replayed.push(m),
      notAsked,
    );
    expect(sent).toBe(2);
    expect(seen).toEqual(["POST 1", "DELETE 2"]);
    expect(queue.entries).toEqual([]);
    expect(replayed.map((m) => [m.queue, m.method, m.url, m.status])).toEqual([
      ["bookmark-sync", "POST", "/api/bookmarks", 201],
      ["bookmark-sync", "DELETE", "/api/bookmarks", 200],
    ]);
  });

  it("keeps the request and the rest, in order, when the network is still down, and throws for a later retry", async () => {
    const queue = memoryQueue("bookmark-sync", [bookmark("POST", 1), bookmark("POST", 2), bookmark("POST", 3)]);
    let calls = 0;
    const flaky = async () => {
      calls++;
      if (calls === 2) throw new TypeError("Failed to fetch");
      return new Response(null, { status: 204 });
    };
    await expect(replayQueue(queue, flaky, () => undefined, notAsked)).rejects.toBeInstanceOf(ReplayIncompleteError);
    expect(queue.entries).toHaveLength(2);
    expect(await queue.entries[0]!.request.clone().json()).toEqual({ studyId: 2 });
    // The retry sends the two left, the kept body intact.
    const bodies: unknown[] = [];
    expect(
      await replayQueue(
        queue,
        async (r) => (bodies.push(await r.json()), new Response(null, { status: 204 })),
        () => undefined,
        notAsked,
      ),
    ).toBe(2);
    expect(bodies).toEqual([{ studyId: 2 }, { studyId: 3 }]);
  });

  it("retries on 401, 429 and 5xx but delivers final refusals (404 for a vanished study)", async () => {
    for (const status of [401, 429, 500, 503]) {
      const queue = memoryQueue("settings-sync", [
        new Request("https://metamind.test/api/user/settings", { method: "PATCH", body: "{}" }),
      ]);
      await expect(
        replayQueue(
          queue,
          async () => new Response(null, { status }),
          () => undefined,
          notAsked,
        ),
      ).rejects.toThrow(`HTTP ${status}`);
      expect(queue.entries, String(status)).toHaveLength(1);
    }
    const queue = memoryQueue("bookmark-sync", [bookmark("DELETE", 9)]);
    const replayed: ReplayedMessage[] = [];
    expect(
      await replayQueue(
        queue,
        async () => Response.json({ error: "NOT_FOUND" }, { status: 404 }),
        (m) => replayed.push(m),
        notAsked,
      ),
    ).toBe(1);
    expect(queue.entries).toHaveLength(0);
    expect(replayed[0]!.status).toBe(404);
  });

  it("keeps a search's query string in the report, so the page can match it", async () => {
    const queue = memoryQueue("search-sync", [new Request("https://metamind.test/api/search?q=zinc&page=1")]);
    const replayed: ReplayedMessage[] = [];
    await replayQueue(
      queue,
      async () => new Response('{"type":"done"}\n'),
      (m) => replayed.push(m),
      notAsked,
    );
    expect(replayed[0]).toMatchObject({
      queue: "search-sync",
      method: "GET",
      url: "/api/search?q=zinc&page=1",
      status: 200,
    });
  });

  it("sends a user's queued change only in that user's session: kept while signed out, dropped for another user", async () => {
    const owned = (owner: string, studyId: number): QueueEntry => ({
      request: bookmark("POST", studyId),
      metadata: { owner },
    });
    const sentBodies: unknown[] = [];
    const send = async (r: Request) => (sentBodies.push(await r.json()), new Response(null, { status: 201 }));

    const signedOut = memoryQueue("bookmark-sync", []);
    signedOut.entries.push(owned("user-a", 1));
    await expect(
      replayQueue(
        signedOut,
        send,
        () => undefined,
        async () => null,
      ),
    ).rejects.toThrow("HTTP 401");
    expect(signedOut.entries).toHaveLength(1);

    const unreachable = memoryQueue("bookmark-sync", []);
    unreachable.entries.push(owned("user-a", 1));
    await expect(
      replayQueue(
        unreachable,
        send,
        () => undefined,
        async () => Promise.reject(new TypeError("offline")),
      ),
    ).rejects.toThrow("network");
    expect(unreachable.entries).toHaveLength(1);

    const switched = memoryQueue("bookmark-sync", []);
    switched.entries.push(owned("user-a", 1), owned("user-b", 2), owned("user-a", 3));
    let asked = 0;
    const sessionB = async () => (asked++, "user-b");
    expect(await replayQueue(switched, send, () => undefined, sessionB)).toBe(1);
    expect(sentBodies).toEqual([{ studyId: 2 }]);
    expect(switched.entries).toEqual([]);
    expect(asked).toBe(1);
  });
});
