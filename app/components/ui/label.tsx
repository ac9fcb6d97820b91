import { forwardRef, type LabelHTMLAttributes } from "react";
import { cn } from "~/lib/utils";

export const Label = forwardRef<HTMLLabelElement, LabelHTMLAttributes<HTMLLabelElement>>(
  ({ className, ...props }, ref) => (
    <label ref={ref} className={cn("text-sm font-medium text-slate-700", className)} {...props} />
  ),
);
Label.displayName = "Label";
