export type PageItem = number | "ellipsis-start" | "ellipsis-end";

/**
 * Page buttons per SPEC §2: every page when there are 7 or fewer, otherwise first, last, the
 * current page with its neighbours, and an ellipsis for each gap.
 * @param current 1-based current page; @param total total pages (0 → no items).
 */
export function pageItems(current: number, total: number): PageItem[] {
  if (total <= 0) return [];
  if (total <= 7) return Array.from({ length: total }, (_, i) => i + 1);
  const page = Math.min(Math.max(1, current), total);
  let start = Math.max(2, page - 1);
  let end = Math.min(total - 1, page + 1);
  if (page <= 3) {
    start = 2;
    end = 4;
  } else if (page >= total - 2) {
    start = total - 3;
    end = total - 1;
  }
  const items: PageItem[] = [1];
  if (start > 2) items.push("ellipsis-start");
  for (let p = start; p <= end; p++) items.push(p);
  if (end < total - 1) items.push("ellipsis-end");
  items.push(total);
  return items;
}
