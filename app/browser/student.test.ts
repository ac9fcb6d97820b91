import { describe, expect, it } from "vitest";
import { isOverdue, localToday, sortByDueDate } from "./student";

describe("student portal helpers", () => {
  it("sorts by due date, soonest first, ties by id", () => {
    const list = [
      { id: 3, dueDate: "2026-03-01" },
      { id: 1, dueDate: "2026-01-15" },
      { id: 2, dueDate: "2026-03-01" },
    ];
    expect(sortByDueDate(list).map((a) => a.id)).toEqual([1, 2, 3]);
  });
  it("marks an assignment overdue only after its due day", () => {
    const today = localToday(new Date(2026, 10, 25, 23, 59));
    expect(today).toBe("2026-11-25");
    expect(isOverdue("2026-11-24", today)).toBe(true);
    expect(isOverdue("2026-11-25", today)).toBe(false);
  });
});
