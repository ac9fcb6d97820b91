import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { Loader2, ShieldAlert, TrendingUp, UserCheck, UserPlus, Users } from "lucide-react";
import { useEffect, useState } from "react";
import { isAdminEmail } from "~/.server/admin/stats";
import { getUser } from "~/.server/auth/session";
import { Card, CardContent, CardHeader, CardTitle } from "~/components/ui/card";
import { toast } from "~/browser/toast";

export const meta: MetaFunction = () => [{ title: "Admin · MetaMind" }];

/** Whether to ask for the statistics at all (SPEC §6: the call is made only for admins); the API decides again. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(context.app, request);
  return { mayAsk: user !== null && isAdminEmail(context.app.env.ADMIN_EMAILS, user.email) };
}

/** GET /api/admin/stats (SPEC §3 Admin stats). */
interface AdminStats {
  totalUsers: number;
  recentSignups: number;
  activeUsers: number;
  growthRate: number;
  users: { id: string; email: string; firstName: string | null; lastName: string | null; createdAt: string }[];
}

type State =
  { kind: "loading" } | { kind: "denied" } | { kind: "error"; message: string } | { kind: "done"; stats: AdminStats };

/**
 * Admin statistics (SPEC §2 Admin). The server decides who is an admin (ADMIN_EMAILS): the page
 * shows the spinner, then the stats, or the 'Access Denied' card and toast on a 401/403.
 */
export default function Admin() {
  const { mayAsk } = useLoaderData<typeof loader>();
  const [state, setState] = useState<State>({ kind: "loading" });

  useEffect(() => {
    const controller = new AbortController();
    const deny = () => {
      setState({ kind: "denied" });
      toast({
        title: "Access Denied",
        description: "You don't have permission to access the admin panel.",
        variant: "destructive",
      });
    };
    if (!mayAsk) {
      deny();
      return;
    }
    void (async () => {
      try {
        const res = await fetch("/api/admin/stats", {
          credentials: "include",
          cache: "no-store",
          signal: controller.signal,
        });
        if (res.status === 401 || res.status === 403) {
          deny();
          return;
        }
        if (!res.ok) throw new Error(`${res.status}: ${await res.text().catch(() => res.statusText)}`);
        setState({ kind: "done", stats: (await res.json()) as AdminStats });
      } catch (error) {
        if (controller.signal.aborted) return;
        console.warn("admin stats failed", error);
        setState({ kind: "error", message: "Could not load the statistics. Please try again." });
      }
    })();
    return () => controller.abort();
  }, [mayAsk]);

  if (state.kind === "loading") {
    return (
      <div
        className="flex justify-center py-24"
        role="status"
        aria-label="Loading statistics"
        data-testid="admin-loading"
      >
        <Loader2 className="size-8 animate-spin text-brand-600" aria-hidden />
      </div>
    );
  }
  if (state.kind === "denied") {
    return (
      <div className="mx-auto max-w-md px-4 py-16">
        <Card data-testid="access-denied">
          <CardContent className="flex flex-col items-center gap-3 p-8 text-center">
            <ShieldAlert className="size-10 text-red-600" aria-hidden />
            <h1 className="text-xl font-semibold text-slate-900">Access Denied</h1>
            <p className="text-slate-600">You don&apos;t have permission to access the admin panel.</p>
          </CardContent>
        </Card>
      </div>
    );
  }
  if (state.kind === "error") {
    return (
      <p role="alert" className="mx-auto max-w-md px-4 py-16 text-center text-red-700">
        {state.message}
      </p>
    );
  }
  const { stats } = state;
  const cards = [
    { label: "Total Users", value: stats.totalUsers.toLocaleString("en"), icon: Users, testId: "stat-total" },
    {
      label: "Recent Signups",
      hint: "Last 7 days",
      value: stats.recentSignups.toLocaleString("en"),
      icon: UserPlus,
      testId: "stat-recent",
    },
    {
      label: "Active Users",
      hint: "Last 30 days",
      value: stats.activeUsers.toLocaleString("en"),
      icon: UserCheck,
      testId: "stat-active",
    },
    { label: "Growth Rate", hint: "Weekly", value: `${stats.growthRate}%`, icon: TrendingUp, testId: "stat-growth" },
  ];
  return (
    <div className="mx-auto max-w-6xl px-4 py-10 sm:px-6">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">Admin Dashboard</h1>
      <div className="mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        {cards.map(({ label, hint, value, icon: Icon, testId }) => (
          <Card key={label}>
            <CardContent className="p-5">
              <div className="flex items-center justify-between text-sm font-medium text-slate-600">
                <span>
                  {label}
                  {hint && <span className="block text-xs font-normal text-slate-500">{hint}</span>}
                </span>
                <Icon className="size-5 text-brand-600" aria-hidden />
              </div>
              <p className="mt-2 text-3xl font-bold text-slate-900" data-testid={testId}>
                {value}
              </p>
            </CardContent>
          </Card>
        ))}
      </div>
      <Card className="mt-8">
        <CardHeader>
          <CardTitle as="h2">Recent Users</CardTitle>
        </CardHeader>
        <CardContent className="overflow-x-auto pt-0" role="region" aria-label="Recent users" tabIndex={0}>
          <table className="w-full min-w-[32rem] text-left text-sm" data-testid="recent-users">
            <thead className="border-b border-slate-200 text-slate-600">
              <tr>
                <th scope="col" className="py-2 pr-4 font-medium">
                  Email
                </th>
                <th scope="col" className="py-2 pr-4 font-medium">
                  Name
                </th>
                <th scope="col" className="py-2 pr-4 font-medium">
                  Joined
                </th>
                <th scope="col" className="py-2 font-medium">
                  Status
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {stats.users.length === 0 ? (
                <tr>
                  <td colSpan={4} className="py-6 text-center text-slate-500">
                    No users found
                  </td>
                </tr>
              ) : (
                stats.users.map((u) => (
                  <tr key={u.id} data-testid="recent-user">
                    <td className="py-2 pr-4 break-all">{u.email}</td>
                    <td className="py-2 pr-4">
                      {[u.firstName, u.lastName].filter(Boolean).join(" ") || "Not provided"}
                    </td>
                    <td className="py-2 pr-4 whitespace-nowrap">{new Date(u.createdAt).toLocaleDateString("en-GB")}</td>
                    <td className="py-2">
                      <span className="rounded-full bg-emerald-50 px-2 py-0.5 text-xs font-medium text-emerald-800">
                        Active
                      </span>
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </CardContent>
      </Card>
    </div>
  );
}
