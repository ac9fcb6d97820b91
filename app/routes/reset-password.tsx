import type { MetaFunction } from "@remix-run/cloudflare";
import { Link, useSearchParams } from "@remix-run/react";
import { CircleCheck, Eye, EyeOff, Loader2, XCircle } from "lucide-react";
import { useEffect, useState, type FormEvent } from "react";
import { Button } from "~/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/components/ui/card";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import { toast } from "~/browser/toast";

export const meta: MetaFunction = () => [{ title: "Reset password · MetaMind" }];

type State = "verifying" | "valid" | "invalid" | "done";

/** SPEC §2/§4 Reset password: verifying → form → done, or verifying → invalid (no token: invalid at once). */
export default function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const [state, setState] = useState<State>(token ? "verifying" : "invalid");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [show, setShow] = useState(false);
  const [showConfirm, setShowConfirm] = useState(false);
  const [submitting, setSubmitting] = useState(false);

  useEffect(() => {
    if (!token) {
      toast({ title: "Invalid Link", description: "No reset token provided in the URL", variant: "destructive" });
      setState("invalid");
      return;
    }
    let cancelled = false;
    fetch(`/api/auth/verify-reset-token/${encodeURIComponent(token)}`, { credentials: "include" })
      .then(async (res) => {
        if (cancelled) return;
        if (res.ok) {
          setState("valid");
          return;
        }
        const body = (await res.json().catch(() => ({}))) as { message?: string };
        toast({
          title: "Invalid Token",
          description: body.message || "This reset link is invalid or has expired",
          variant: "destructive",
        });
        setState("invalid");
      })
      .catch(() => {
        if (cancelled) return;
        toast({ title: "Error", description: "Failed to verify reset token", variant: "destructive" });
        setState("invalid");
      });
    return () => {
      cancelled = true;
    };
  }, [token]);

  const ready = password.length >= 6 && confirm.length >= 6 && password === confirm;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (password.length < 6) {
      toast({
        title: "Password Too Short",
        description: "Password must be at least 6 characters long",
        variant: "destructive",
      });
      return;
    }
    if (password !== confirm) {
      toast({ title: "Password Mismatch", description: "Passwords do not match", variant: "destructive" });
      return;
    }
    setSubmitting(true);
    try {
      const res = await fetch("/api/auth/reset-password", {
        method: "POST",
        credentials: "include",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ token, newPassword: password }),
      });
      const body = (await res.json().catch(() => ({}))) as { message?: string };
      if (!res.ok) {
        toast({
          title: "Reset Failed",
          description: body.message || "Failed to reset password",
          variant: "destructive",
        });
        return;
      }
      toast({ title: "Password Reset Successful", description: "Your password has been successfully reset" });
      setState("done");
    } catch {
      toast({ title: "Reset Failed", description: "Failed to reset password", variant: "destructive" });
    } finally {
      setSubmitting(false);
    }
  }

  return (
    <div className="mx-auto max-w-md px-4 py-16">
      <Card>
        {state === "verifying" && (
          <CardContent className="flex items-center justify-center gap-2 py-10 text-slate-700">
            <Loader2 className="size-5 animate-spin" aria-hidden /> Verifying reset token...
          </CardContent>
        )}
        {state === "invalid" && (
          <>
            <CardHeader className="text-center">
              <XCircle className="mx-auto size-10 text-red-600" aria-hidden />
              <CardTitle as="h1">Invalid Reset Link</CardTitle>
              <CardDescription>
                This reset link is invalid or has expired. Links work once and for 15 minutes.
              </CardDescription>
            </CardHeader>
            <CardContent className="flex flex-col gap-2">
              <Button asChild>
                <Link to="/forgot-password">Request a new link</Link>
              </Button>
              <Button asChild variant="ghost">
                <Link to="/auth">Back to Login</Link>
              </Button>
            </CardContent>
          </>
        )}
        {state === "done" && (
          <>
            <CardHeader className="text-center">
              <CircleCheck className="mx-auto size-10 text-emerald-600" aria-hidden />
              <CardTitle as="h1">Password Reset Complete</CardTitle>
              <CardDescription>
                Your password has been changed and every device was signed out. Sign in with the new password.
              </CardDescription>
            </CardHeader>
            <CardContent>
              <Button asChild className="w-full">
                <Link to="/auth">Sign In</Link>
              </Button>
            </CardContent>
          </>
        )}
        {state === "valid" && (
          <>
            <CardHeader>
              <CardTitle as="h1">Choose a new password</CardTitle>
              <CardDescription>At least 6 characters.</CardDescription>
            </CardHeader>
            <CardContent>
              <form onSubmit={submit} className="space-y-4">
                <PasswordField
                  id="new-password"
                  label="New password"
                  value={password}
                  onChange={setPassword}
                  shown={show}
                  onToggle={() => setShow((v) => !v)}
                />
                <PasswordField
                  id="confirm-password"
                  label="Confirm new password"
                  value={confirm}
                  onChange={setConfirm}
                  shown={showConfirm}
                  onToggle={() => setShowConfirm((v) => !v)}
                />
                {confirm.length > 0 && password !== confirm && (
                  <p className="text-sm text-red-700">Passwords do not match</p>
                )}
                {password.length > 0 && password.length < 6 && (
                  <p className="text-sm text-red-700">Password must be at least 6 characters long</p>
                )}
                <Button type="submit" className="w-full" disabled={!ready || submitting}>
                  {submitting ? "Resetting..." : "Reset Password"}
                </Button>
              </form>
            </CardContent>
          </>
        )}
      </Card>
    </div>
  );
}

function PasswordField(props: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  shown: boolean;
  onToggle: () => void;
}) {
  return (
    <div className="space-y-1">
      <Label htmlFor={props.id}>{props.label}</Label>
      <div className="relative">
        <Input
          id={props.id}
          type={props.shown ? "text" : "password"}
          autoComplete="new-password"
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          className="pr-10"
        />
        <button
          type="button"
          onClick={props.onToggle}
          className="absolute inset-y-0 right-0 flex items-center px-3 text-slate-500 hover:text-slate-800"
          aria-label={props.shown ? `Hide ${props.label.toLowerCase()}` : `Show ${props.label.toLowerCase()}`}
        >
          {props.shown ? <EyeOff className="size-4" aria-hidden /> : <Eye className="size-4" aria-hidden />}
        </button>
      </div>
    </div>
  );
}
