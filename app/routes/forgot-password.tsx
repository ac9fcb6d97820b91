import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { ArrowLeft, Mail } from "lucide-react";
import { useState, type FormEvent } from "react";
import { emailConfigured } from "~/.server/email/send";
import { isDevelopment } from "~/.server/env";
import { Button } from "~/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/components/ui/card";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import { toast } from "~/browser/toast";

export const meta: MetaFunction = () => [{ title: "Forgot password · MetaMind" }];

/** Development without an e-mail API: the page says where the link goes (the console). */
export async function loader({ context }: LoaderFunctionArgs) {
  const env = context.app.env;
  return { devMode: isDevelopment(env) && !emailConfigured(env) };
}

/** SPEC §2 Forgot password: form, then 'Check Your Email'; 'Try Different Email' clears the e-mail. */
export default function ForgotPasswordPage() {
  const { devMode } = useLoaderData<typeof loader>();
  const [email, setEmail] = useState("");
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSending(true);
    try {
      const res = await fetch("/api/auth/forgot-password", {
        method: "POST",
        credentials: "include",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email }),
      });
      const body = (await res.json().catch(() => ({}))) as { message?: string; debugToken?: string };
      if (!res.ok) {
        toast({ title: "Error", description: body.message || "Failed to send reset email", variant: "destructive" });
        return;
      }
      if (body.debugToken)
        console.info(`Reset link: ${window.location.origin}/reset-password?token=${body.debugToken}`);
      setSent(true);
      toast({ title: "Reset link sent", description: "Check your email for the link to reset your password." });
    } catch {
      toast({ title: "Error", description: "Something went wrong. Please try again.", variant: "destructive" });
    } finally {
      setSending(false);
    }
  }

  return (
    <div className="mx-auto max-w-md px-4 py-16">
      <Card>
        {sent ? (
          <>
            <CardHeader className="text-center">
              <Mail className="mx-auto size-10 text-brand-600" aria-hidden />
              <CardTitle as="h1">Check Your Email</CardTitle>
              <CardDescription>If an account exists for {email}, we sent a link to reset its password.</CardDescription>
            </CardHeader>
            <CardContent className="space-y-4 text-sm text-slate-700">
              <ul className="list-disc space-y-1 pl-5">
                <li>Didn&apos;t get it? Look in your spam or junk folder.</li>
                <li>The link expires in 15 minutes and works once.</li>
              </ul>
              <div className="flex flex-col gap-2">
                <Button
                  variant="outline"
                  onClick={() => {
                    setSent(false);
                    setEmail("");
                  }}
                >
                  Try Different Email
                </Button>
                <Button asChild variant="ghost">
                  <Link to="/auth">
                    <ArrowLeft aria-hidden /> Back to Login
                  </Link>
                </Button>
              </div>
            </CardContent>
          </>
        ) : (
          <>
            <CardHeader>
              <CardTitle as="h1">Forgot password</CardTitle>
              <CardDescription>
                Enter your account&apos;s e-mail and we&apos;ll send you a link to choose a new password.
              </CardDescription>
            </CardHeader>
            <CardContent>
              <form onSubmit={submit} className="space-y-4">
                <div className="space-y-1">
                  <Label htmlFor="forgot-email">Email</Label>
                  <Input
                    id="forgot-email"
                    type="email"
                    required
                    autoComplete="email"
                    value={email}
                    onChange={(e) => setEmail(e.target.value)}
                  />
                </div>
                <Button type="submit" className="w-full" disabled={!email.trim() || sending}>
                  {sending ? "Sending..." : "Send Reset Link"}
                </Button>
                <Button asChild variant="ghost" className="w-full">
                  <Link to="/auth">
                    <ArrowLeft aria-hidden /> Back to Login
                  </Link>
                </Button>
              </form>
              {devMode && (
                <p
                  className="mt-4 rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900"
                  data-testid="dev-notice"
                >
                  Development mode: no e-mail service is configured, so reset tokens show in the console (server log and
                  browser console).
                </p>
              )}
            </CardContent>
          </>
        )}
      </Card>
    </div>
  );
}
