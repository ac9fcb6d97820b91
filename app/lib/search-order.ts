/**
 * Orders the merged (de-duplicated) page of a multi-database search the way its cards arrived
 * while the databases answered, so finishing the search does not move the card being read
 * (issue 16, defect 4). Studies that were not shown while streaming keep their merged order and
 * follow the ones that were. Pure; stable.
 *
 * @param merged the final page as the server merged it.
 * @param arrivalIds study ids in the order their cards appeared.
 */
export function inArrivalOrder<T extends { id: number }>(merged: readonly T[], arrivalIds: readonly number[]): T[] {
  const rank = new Map<number, number>();
  arrivalIds.forEach((id, i) => {
    if (!rank.has(id)) rank.set(id, i);
  });
  return merged
    .map((study, index) => ({ study, index, rank: rank.get(study.id) ?? Number.POSITIVE_INFINITY }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((entry) => entry.study);
}

/** Whether two lists show the same ids in the same order. */
export function sameOrder(a: readonly { id: number }[], b: readonly { id: number }[]): boolean {
  return a.length === b.length && a.every((s, i) => s.id === b[i]!.id);
}
