import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { Link, NavLink } from "@remix-run/react";
import {
  ChevronDown,
  CircleUser,
  FlaskConical,
  GraduationCap,
  HelpCircle,
  LayoutDashboard,
  ListChecks,
  LogOut,
  Microscope,
  Search,
  Upload,
  Settings,
  UserRound,
  type LucideIcon,
} from "lucide-react";
import { useState } from "react";
import type { PublicUser } from "~/.server/auth/session";
import { HistoryButton } from "~/components/search/history-dialog";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { cn } from "~/lib/utils";

interface NavItem {
  to: string;
  label: string;
  icon: LucideIcon;
  /** Match the path exactly (for "/"). */
  end?: boolean;
}

/** Signed-in navigation; later features add their pages here. */
const NAV_ITEMS: NavItem[] = [
  { to: "/", label: "Dashboard", icon: LayoutDashboard, end: true },
  { to: "/search", label: "Search Studies", icon: Search },
  { to: "/upload", label: "Upload PDFs", icon: Upload },
  { to: "/reviews", label: "Reviews", icon: ListChecks },
  { to: "/meta-analysis", label: "Meta-Analysis", icon: FlaskConical },
  { to: "/faq", label: "FAQ", icon: HelpCircle },
];

/** Account links in the user menu; `mobileOnly` ones show below the `sm` breakpoint only (SPEC §2). */
const ACCOUNT_ITEMS: { to: string; label: string; icon: LucideIcon; mobileOnly?: boolean }[] = [
  { to: "/profile", label: "Profile", icon: UserRound },
  { to: "/settings", label: "Settings", icon: Settings },
  { to: "/student", label: "Student Portal", icon: GraduationCap, mobileOnly: true },
];

export function Header({ user }: { user: PublicUser | null }) {
  return (
    <header className="sticky top-0 z-40 border-b border-slate-200 bg-white/95 backdrop-blur supports-[backdrop-filter]:bg-white/80">
      <div className="mx-auto flex h-16 max-w-6xl min-w-0 items-center gap-2 px-3 sm:gap-4 sm:px-6">
        <Link
          to="/"
          aria-label="MetaMind home"
          className="flex shrink-0 items-center gap-2 rounded-md text-lg font-semibold tracking-tight text-slate-900 focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:outline-none"
        >
          <span className="flex size-8 items-center justify-center rounded-lg bg-brand-600 text-white">
            <Microscope className="size-4.5" aria-hidden />
          </span>
          <span className={user ? "hidden sm:inline" : undefined}>MetaMind</span>
        </Link>
        {user && <MainNav />}
        <div className="ml-auto flex shrink-0 items-center">
          {user ? (
            <UserMenu user={user} />
          ) : (
            <Button asChild size="sm">
              <Link to="/auth">Sign In</Link>
            </Button>
          )}
        </div>
      </div>
    </header>
  );
}

function MainNav() {
  return (
    <nav aria-label="Main" className="flex min-w-0 items-center gap-0.5 sm:gap-1">
      {NAV_ITEMS.map(({ to, label, icon: Icon, end }) => (
        <NavLink
          key={to}
          to={to}
          end={end}
          title={label}
          className={({ isActive }) =>
            cn(
              "flex items-center gap-2 rounded-md px-2 py-2 text-sm font-medium transition-colors focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:outline-none sm:px-2.5 lg:px-3",
              isActive
                ? "bg-brand-50 text-brand-700"
                : "text-slate-600 hover:bg-slate-100 hover:text-slate-900"
            )
          }
        >
          <Icon className="size-4 shrink-0" aria-hidden />
          <span className="sr-only lg:not-sr-only">{label}</span>
        </NavLink>
      ))}
      <HistoryButton />
    </nav>
  );
}

function displayName(user: PublicUser): string {
  const name = [user.firstName, user.lastName].filter(Boolean).join(" ");
  return name || user.email;
}

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

function UserMenu({ user }: { user: PublicUser }) {
  const [signingOut, setSigningOut] = useState(false);
  const name = displayName(user);

  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger asChild>
        <Button variant="ghost" size="sm" className="max-w-40 gap-1 px-1.5 sm:gap-1.5 sm:px-2 xl:max-w-56" aria-label={`Account menu for ${name}`}>
          <CircleUser className="size-5 shrink-0 text-slate-500" aria-hidden />
          <span className="sr-only truncate xl:not-sr-only">{name}</span>
          <ChevronDown className="hidden size-4 shrink-0 text-slate-400 sm:block" aria-hidden />
        </Button>
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
