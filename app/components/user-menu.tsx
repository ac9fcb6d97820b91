import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { Link } from "@remix-run/react";
import { GraduationCap, LogOut, Settings, UserRound, type LucideIcon } from "lucide-react";
import { useState } from "react";
import type { PublicUser } from "~/lib/public-user";
import { Badge } from "~/components/ui/badge";
import { displayName, UserMenuTrigger } from "~/components/user-menu-trigger";
import { cn } from "~/lib/utils";

/** Account links in the user menu; `mobileOnly` ones show below the `sm` breakpoint only (SPEC §2). */
const ACCOUNT_ITEMS: { to: string; label: string; icon: LucideIcon; mobileOnly?: boolean }[] = [
  { to: "/profile", label: "Profile", icon: UserRound },
  { to: "/settings", label: "Settings", icon: Settings },
  { to: "/student", label: "Student Portal", icon: GraduationCap, mobileOnly: true },
];

function clearBrowserState(): void {
  try {
    localStorage.clear();
    sessionStorage.clear();
  } catch (error) {
    console.warn("Could not clear browser storage", error);
  }
  for (const cookie of document.cookie.split(";")) {
    const name = cookie.split("=")[0]?.trim();
    if (name) document.cookie = `${name}=; Max-Age=0; path=/`;
  }
}

/** SPEC §4 Logout: end the session, clear local data and go home, even if the call fails. */
async function signOut(): Promise<void> {
  try {
    await fetch("/api/logout", { method: "POST", credentials: "include" });
  } catch (error) {
    console.warn("Logout request failed; clearing local data anyway", error);
  }
  clearBrowserState();
  window.location.assign("/");
}

/**
 * The header's account menu (Radix dropdown), loaded after hydration by the header's `UserMenu`;
 * `defaultOpen` opens it at once when the user clicked the server-rendered trigger first.
 */
export function UserMenuDropdown({ user, defaultOpen }: { user: PublicUser; defaultOpen: boolean }) {
  const [signingOut, setSigningOut] = useState(false);
  const name = displayName(user);

  return (
    <DropdownMenu.Root modal={false} defaultOpen={defaultOpen}>
      <DropdownMenu.Trigger asChild>
        <UserMenuTrigger name={name} />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="end"
          sideOffset={6}
          collisionPadding={8}
          className="z-50 w-[min(15rem,calc(100vw-1rem))] rounded-lg border border-slate-200 bg-white p-1 text-slate-900 shadow-lg"
        >
          <DropdownMenu.Label className="px-3 py-2">
            <p className="truncate text-sm font-medium">{name}</p>
            {name !== user.email && <p className="truncate text-xs text-slate-500">{user.email}</p>}
            <Badge variant={user.isPro ? "default" : "secondary"} className="mt-2">
              {user.isPro ? "Professional" : "Free"}
            </Badge>
          </DropdownMenu.Label>
          <DropdownMenu.Separator className="my-1 h-px bg-slate-200" />
          {ACCOUNT_ITEMS.map(({ to, label, icon: Icon, mobileOnly }) => (
            <DropdownMenu.Item key={to} asChild>
              <Link
                to={to}
                className={cn(
                  "flex cursor-pointer items-center gap-2 rounded-md px-3 py-2 text-sm text-slate-700 outline-none select-none data-[highlighted]:bg-slate-100 data-[highlighted]:text-slate-900",
                  mobileOnly && "sm:hidden",
                )}
              >
                <Icon className="size-4" aria-hidden />
                {label}
              </Link>
            </DropdownMenu.Item>
          ))}
          <DropdownMenu.Item
            disabled={signingOut}
            onSelect={() => {
              setSigningOut(true);
              void signOut();
            }}
            className="flex cursor-pointer items-center gap-2 rounded-md px-3 py-2 text-sm text-slate-700 outline-none select-none data-[disabled]:opacity-60 data-[highlighted]:bg-slate-100 data-[highlighted]:text-slate-900"
          >
            <LogOut className="size-4" aria-hidden />
            {signingOut ? "Signing Out..." : "Sign Out"}
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
