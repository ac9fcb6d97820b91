import * as DialogPrimitive from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import {
  createContext,
  forwardRef,
  useContext,
  type ComponentPropsWithoutRef,
  type ElementRef,
  type HTMLAttributes,
  type ReactNode,
} from "react";
import { Button } from "~/components/ui/button";
import { cn } from "~/lib/utils";

/**
 * The one modal dialog primitive (shadcn/ui's dialog shape over Radix Dialog): Dialog (Root),
 * DialogContent (portal, overlay and the panel), DialogHeader (the title row with the close button
 * "Close" after the title, so focus order and layout stay as every dialog had them), DialogTitle,
 * DialogDescription, DialogBody (the scrolling body), DialogFooter, DialogClose, DialogCloseButton.
 * Radix traps focus, restores it to the trigger and closes on Escape. Import it only from components
 * loaded on demand (loadWhenOpen, lazyComponent) or from pages outside the page budgets, so Radix
 * Dialog stays out of the initial JavaScript of /, /search and /answer/{id}. It is the only module
 * that imports @radix-ui/react-dialog (eslint.config.js).
 */
export const Dialog = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;

/**
 * How the panel sits on the screen:
 * - `panel` (default): centred, padded; header, description, content and footer flow inside it.
 * - `sections`: centred, at most 85vh tall, unpadded; a bordered DialogHeader, a DialogBody that
 *   scrolls and an optional bordered DialogFooter.
 * - `sheet`: a full-height drawer on the right (max-w-md), in sections like `sections`.
 * - `fill`: the whole viewport less 1rem on each side, in sections like `sections`.
 * `className` extends the layout (width such as `max-w-3xl`, height such as `max-h-[90vh]`).
 */
export type DialogLayout = "panel" | "sections" | "sheet" | "fill";

const LAYOUT_CLASS: Record<DialogLayout, string> = {
  panel: "top-1/2 left-1/2 w-[calc(100%-2rem)] -translate-x-1/2 -translate-y-1/2 rounded-xl border p-6",
  sections:
    "top-1/2 left-1/2 flex max-h-[85vh] w-[calc(100%-2rem)] -translate-x-1/2 -translate-y-1/2 flex-col rounded-xl border",
  sheet: "inset-y-0 right-0 flex w-full max-w-md flex-col border-l shadow-2xl",
  fill: "inset-4 flex flex-col rounded-xl border",
};

/** True inside a `sections`, `sheet` or `fill` dialog: header and footer draw their dividers. */
const Sectioned = createContext(false);

/** The panel with its portal and overlay, laid out as `layout` says (default `panel`). */
export const DialogContent = forwardRef<
  ElementRef<typeof DialogPrimitive.Content>,
  ComponentPropsWithoutRef<typeof DialogPrimitive.Content> & { layout?: DialogLayout }
>(({ className, layout = "panel", ...props }, ref) => (
  <DialogPrimitive.Portal>
    <DialogPrimitive.Overlay className="fixed inset-0 z-50 bg-slate-900/50" />
    <Sectioned.Provider value={layout !== "panel"}>
      <DialogPrimitive.Content
        ref={ref}
        className={cn(
          "fixed z-50 border-slate-200 bg-white shadow-xl focus:outline-none",
          LAYOUT_CLASS[layout],
          className,
        )}
        {...props}
      />
    </Sectioned.Provider>
  </DialogPrimitive.Portal>
));
DialogContent.displayName = "DialogContent";

/** The icon button "Close" (an X) that closes the dialog; DialogHeader places one after the title. */
export function DialogCloseButton({ className = "-mt-1 -mr-2 size-8" }: { className?: string }) {
  return (
    <DialogPrimitive.Close asChild>
      <Button variant="ghost" size="icon" className={className} aria-label="Close">
        <X aria-hidden />
      </Button>
    </DialogPrimitive.Close>
  );
}

/**
 * The title row: its children (the title, often with the description), then `actions` (buttons
 * such as Download, before the close button) and, unless `closeButton` is false, the close button.
 * In a sectioned layout it is padded and divided from the body.
 */
export function DialogHeader({
  className,
  children,
  actions,
  closeButton = true,
  closeClassName,
  ...props
}: HTMLAttributes<HTMLDivElement> & { actions?: ReactNode; closeButton?: boolean; closeClassName?: string }) {
  const sectioned = useContext(Sectioned);
  const close = closeButton && <DialogCloseButton className={closeClassName} />;
  return (
    <div
      className={cn("flex items-start justify-between gap-4", sectioned && "border-b border-slate-200 p-5", className)}
      {...props}
    >
      {children}
      {actions ? (
        <div className="flex shrink-0 items-center gap-2">
          {actions}
          {close}
        </div>
      ) : (
        close
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

/** The body of a sectioned dialog: takes the height left by header and footer and scrolls. */
export function DialogBody({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn("flex-1 overflow-y-auto p-5", className)} {...props} />;
}

/** The action row at the bottom of a dialog; in a sectioned layout a bordered bar. */
export function DialogFooter({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  const sectioned = useContext(Sectioned);
  return (
    <div
      className={cn(
        sectioned
          ? "flex flex-wrap items-center justify-end gap-2 border-t border-slate-200 p-4"
          : "mt-6 flex justify-end gap-2",
        className,
      )}
      {...props}
    />
  );
}
