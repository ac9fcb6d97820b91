import ChevronDown from "lucide-react/icons/chevron-down";
import CircleUser from "lucide-react/icons/circle-user";
import { forwardRef, type ComponentPropsWithoutRef } from "react";
import type { PublicUser } from "~/lib/public-user";
import { Button } from "~/components/ui/button";

/** The name shown for a user: first and last name, else the email. */
export function displayName(user: PublicUser): string {
  const name = [user.firstName, user.lastName].filter(Boolean).join(" ");
  return name || user.email;
}

/**
 * The account menu's button: the same element server-rendered by the header before the menu code
 * has loaded, and as the Radix trigger after (props and ref are forwarded to the button).
 */
export const UserMenuTrigger = forwardRef<HTMLButtonElement, ComponentPropsWithoutRef<"button"> & { name: string }>(
  function UserMenuTrigger({ name, ...props }, ref) {
    return (
      <Button
        ref={ref}
        variant="ghost"
        size="sm"
        className="max-w-40 gap-1 px-1.5 sm:gap-1.5 sm:px-2 xl:max-w-56"
        aria-label={`Account menu for ${name}`}
        {...props}
      >
        <CircleUser className="size-5 shrink-0 text-slate-500" aria-hidden />
        <span className="sr-only truncate xl:not-sr-only">{name}</span>
        <ChevronDown className="hidden size-4 shrink-0 text-slate-400 sm:block" aria-hidden />
      </Button>
    );
  },
);
