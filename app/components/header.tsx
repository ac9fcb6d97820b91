import { Link, NavLink } from "@remix-run/react";
import FlaskConical from "lucide-react/icons/flask-conical";
import HelpCircle from "lucide-react/icons/circle-question-mark";
import LayoutDashboard from "lucide-react/icons/layout-dashboard";
import ListChecks from "lucide-react/icons/list-checks";
import Microscope from "lucide-react/icons/microscope";
import Search from "lucide-react/icons/search";
import Upload from "lucide-react/icons/upload";
import type { LucideIcon } from "lucide-react";
import { useState } from "react";
import type { PublicUser } from "~/lib/public-user";
import { AfterHydration, lazyComponent } from "~/components/on-demand";
import { HistoryButton } from "~/components/search/history-button";
import { Button } from "~/components/ui/button";
import { displayName, UserMenuTrigger } from "~/components/user-menu-trigger";
import { clsx } from "clsx";

const UserMenuDropdown = lazyComponent(() => import("~/components/user-menu").then((m) => m.UserMenuDropdown));

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
            clsx(
              "flex items-center gap-2 rounded-md px-2 py-2 text-sm font-medium whitespace-nowrap transition-colors focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:outline-none sm:px-2.5 lg:px-3 xl:px-2.5",
              isActive ? "bg-brand-50 text-brand-700" : "text-slate-600 hover:bg-slate-100 hover:text-slate-900",
            )
          }
        >
          <Icon className="size-4 shrink-0" aria-hidden />
          <span className="sr-only xl:not-sr-only">
            <span className="whitespace-nowrap">{label}</span>
          </span>
        </NavLink>
      ))}
      <HistoryButton />
    </nav>
  );
}

/**
 * The account menu. Its Radix dropdown is not in the initial JavaScript: the server renders the
 * same trigger button, and the menu code loads after hydration (a click before then opens it as
 * soon as it has loaded).
 */
function UserMenu({ user }: { user: PublicUser }) {
  const [clicked, setClicked] = useState(false);
  const trigger = (
    <UserMenuTrigger
      name={displayName(user)}
      aria-haspopup="menu"
      aria-expanded={false}
      onClick={() => setClicked(true)}
    />
  );
  return (
    <AfterHydration fallback={trigger}>
      <UserMenuDropdown user={user} defaultOpen={clicked} />
    </AfterHydration>
  );
}
