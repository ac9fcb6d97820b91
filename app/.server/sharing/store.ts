/**
 * Shared answers and plans (issue 14, SPEC §7 POST /api/shared-answers): the payload lives in KV
 * under `shared:{id}` (read by the public pages), and a D1 row in `shared_items` indexes it by
 * owner, so the owner can list and unshare links and account deletion removes them.
 *
 * Public ids are 128 random bits (32 hex characters), never the client's 6-digit timestamp id,
 * which is kept only as `clientId`.
 */
import { and, desc, eq } from "drizzle-orm";
import { sharedItems } from "../../../db/schema";
import { sharePath, SHARE_ID_PATTERN, type SharedItem, type SharedKind, type SharedLink } from "~/lib/sharing";
import type { Database } from "../db/client";
import { AppError } from "../http/errors";

/** Who owns a link: a signed-in user, or a guest's verified device id. */
export type ShareOwner = { userId: string } | { deviceKey: string };

/** The KV key of a shared item. */
export const sharedKey = (id: string) => `shared:${id}`;

/** A new public id: 16 bytes from the CSPRNG as 32 lowercase hex characters (128 bits). */
export function newShareId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

interface ShareDeps {
  db: Database;
  kv: KVNamespace;
}

const ownerWhere = (owner: ShareOwner) =>
  "userId" in owner ? eq(sharedItems.userId, owner.userId) : eq(sharedItems.deviceKey, owner.deviceKey);

/**
 * Stores a shared item: the index row first, then the KV payload; if the KV write fails the row
 * is removed again, so nothing is left half-written.
 *
 * @param item the payload without its id and time (they are set here).
 * @returns the public id and the path of its page ("/answer/{id}", "/workout/{id}",
 *   "/meal-plan/{id}").
 */
export async function createSharedItem(
  { db, kv }: ShareDeps,
  input: {
    owner: ShareOwner | null;
    clientId: string | null;
    title: string;
    item: DistributiveOmit<SharedItem, "shareId" | "createdAt">;
    now?: number;
  },
): Promise<{ id: string; path: string }> {
  const id = newShareId();
  const createdAt = input.now ?? Date.now();
  const kind: SharedKind = input.item.kind;
  await db.insert(sharedItems).values({
    id,
    kind,
    userId: input.owner && "userId" in input.owner ? input.owner.userId : null,
    deviceKey: input.owner && "deviceKey" in input.owner ? input.owner.deviceKey : null,
    clientId: input.clientId,
    title: input.title.slice(0, 300),
    createdAt,
  });
  const stored = { ...input.item, shareId: id, createdAt } as SharedItem;
  try {
    await kv.put(sharedKey(id), JSON.stringify(stored));
  } catch (error) {
    await db.delete(sharedItems).where(eq(sharedItems.id, id));
    throw error;
  }
  return { id, path: sharePath(kind, id) };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * The shared item with this public id and kind, or null (malformed id, unknown id, another
 * kind, unreadable payload).
 */
export async function getSharedItem(
  kv: KVNamespace,
  { id, kind }: { id: string; kind: SharedKind },
): Promise<SharedItem | null> {
  if (!SHARE_ID_PATTERN.test(id)) return null;
  const item = await kv.get<SharedItem>(sharedKey(id), "json");
  if (!item || typeof item !== "object" || item.kind !== kind) return null;
  return item;
}

/** The owner's links, newest first (at most 200). */
export async function listSharedItems(
  { db }: Pick<ShareDeps, "db">,
  { owner, origin }: { owner: ShareOwner; origin: string },
): Promise<SharedLink[]> {
  const rows = await db
    .select()
    .from(sharedItems)
    .where(ownerWhere(owner))
    .orderBy(desc(sharedItems.createdAt))
    .limit(200);
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    clientId: r.clientId,
    title: r.title,
    url: `${origin}${sharePath(r.kind, r.id)}`,
    createdAt: r.createdAt,
  }));
}

/**
 * Unshares a link the owner created: the index row and the KV payload are deleted.
 * @returns the path of its public page (to evict from caches).
 * @throws AppError 404 SHARE_NOT_FOUND when the id is malformed, unknown or someone else's.
 */
export async function deleteSharedItem(
  { db, kv }: ShareDeps,
  { owner, id }: { owner: ShareOwner; id: string },
): Promise<{ path: string }> {
  if (!SHARE_ID_PATTERN.test(id)) throw new AppError("SHARE_NOT_FOUND", "Shared item not found", 404);
  const deleted = await db
    .delete(sharedItems)
    .where(and(eq(sharedItems.id, id), ownerWhere(owner)))
    .returning({ id: sharedItems.id, kind: sharedItems.kind });
  if (deleted.length === 0) throw new AppError("SHARE_NOT_FOUND", "Shared item not found", 404);
  await kv.delete(sharedKey(id));
  return { path: sharePath(deleted[0]!.kind, id) };
}

/**
 * Deletes the KV payloads of every link the user shared (the index rows go with the account's
 * rows). Call before the account deletion, which removes the index.
 * @returns the paths of the deleted links' public pages (to evict from caches).
 */
export async function deleteUserSharedPayloads(
  { db, kv }: ShareDeps,
  { userId }: { userId: string },
): Promise<string[]> {
  const rows = await db
    .select({ id: sharedItems.id, kind: sharedItems.kind })
    .from(sharedItems)
    .where(eq(sharedItems.userId, userId));
  await Promise.all(rows.map((r) => kv.delete(sharedKey(r.id))));
  return rows.map((r) => sharePath(r.kind, r.id));
}
