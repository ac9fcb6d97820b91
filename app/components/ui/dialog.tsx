import * as DialogPrimitive from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import { forwardRef, type ComponentPropsWithoutRef, type ElementRef, type HTMLAttributes } from "react";
import { Button } from "~/components/ui/button";
import { cn } from "~/lib/utils";

/**
 * The one modal dialog primitive (shadcn/ui's dialog shape over Radix Dialog): Dialog (Root),
 * DialogContent (portal, overlay and the centred panel), DialogHeader (the title row with the
 * close button "Close" after the title, so focus order and layout stay as every dialog had them),
 * DialogTitle, DialogDescription, DialogFooter, DialogClose. Radix traps focus, restores it to the
 * trigger and closes on Escape. Import it only from components loaded on demand (loadWhenOpen), so
 * Radix Dialog stays out of every page's initial JavaScript.
 */
export const Dialog = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;

/** The panel with its portal and overlay; `className` extends the centred base (width, height, overflow). */
export const DialogContent = forwardRef<
  ElementRef<typeof DialogPrimitive.Content>,
  ComponentPropsWithoutRef<typeof DialogPrimitive.Content>
>(({ className, ...props }, ref) => (
  <DialogPrimitive.Portal>
    <DialogPrimitive.Overlay className="fixed inset-0 z-50 bg-slate-900/50" />
    <DialogPrimitive.Content
      ref={ref}
      className={cn(
        "fixed top-1/2 left-1/2 z-50 w-[calc(100%-2rem)] -translate-x-1/2 -translate-y-1/2 rounded-xl border border-slate-200 bg-white p-6 shadow-xl focus:outline-none",
        className,
      )}
      {...props}
    />
  </DialogPrimitive.Portal>
));
DialogContent.displayName = "DialogContent";

/** The title row: its children (the title) and, unless `closeButton` is false, the close button. */
export function DialogHeader({
  className,
  children,
  closeButton = true,
  closeClassName = "-mt-1 -mr-2 size-8",
  ...props
}: HTMLAttributes<HTMLDivElement> & { closeButton?: boolean; closeClassName?: string }) {
  return (
    <div className={cn("flex items-start justify-between gap-4", className)} {...props}>
      {children}
      {closeButton && (
        <DialogPrimitive.Close asChild>
          <Button variant="ghost" size="icon" className={closeClassName} aria-label="Close">
            <X aria-hidden />
          </Button>
        </DialogPrimitive.Close>
      )}
    </div>
  );
}

export const DialogTitle = forwardRef<
  ElementRef<typeof DialogPrimitive.Title>,
  ComponentPropsWithoutRef<typeof DialogPrimitive.Title>
>(({ className, ...props }, ref) => (
  <DialogPrimitive.Title ref={ref} className={cn("text-lg font-semibold text-slate-900", className)} {...props} />
));
DialogTitle.displayName = "DialogTitle";

export const DialogDescription = forwardRef<
  ElementRef<typeof DialogPrimitive.Description>,
  ComponentPropsWithoutRef<typeof DialogPrimitive.Description>
>(({ className, ...props }, ref) => (
  <DialogPrimitive.Description ref={ref} className={cn("mt-1 text-sm text-slate-600", className)} {...props} />
));
DialogDescription.displayName = "DialogDescription";

/** The action row at the bottom of a dialog. */
export function DialogFooter({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn("mt-6 flex justify-end gap-2", className)} {...props} />;
}
