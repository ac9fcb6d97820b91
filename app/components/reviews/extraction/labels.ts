/** Labels of the review's data extraction table. */
import type { ArmField, ArmKey } from "~/lib/arms";

export const FIELD_LABEL: Record<ArmField, string> = { events: "Events", groupSize: "n", mean: "Mean", sd: "SD" };
export const ARM_LABEL: Record<ArmKey, string> = { intervention: "Intervention", comparator: "Comparator" };
export const ARMS: readonly ArmKey[] = ["intervention", "comparator"];
