import {
  data,
  redirect,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/cloudflare";
import { Link, useActionData, useSearchParams } from "@remix-run/react";
import { ArrowRight, CircleCheck } from "lucide-react";
import { useState, type FormEvent, type InputHTMLAttributes } from "react";
import { LoginSchema, readCredentialsForm, RegisterSchema, registerUser, verifyLogin } from "~/.server/auth/accounts";
import { withLoginLimits, withRegistrationLimit } from "~/.server/auth/limits";
import { createUserSession, getUser } from "~/.server/auth/session";
import { AppError, parseInput } from "~/.server/http/errors";
import { Button } from "~/components/ui/button";
import { Card, CardContent } from "~/components/ui/card";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "~/components/ui/tabs";
import { toast, toastAfterNavigation } from "~/browser/toast";

export const meta: MetaFunction = () => [{ title: "Sign In or Create Account — MetaMind" }];

/** A refused sign-in (429) tells the browser when to try again, as the JSON API does. */
export const headers: HeadersFunction = ({ actionHeaders }) => {
  const retryAfter = actionHeaders.get("Retry-After");
  return retryAfter ? { "Retry-After": retryAfter } : new Headers();
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  if (await getUser(context.app, request)) throw redirect("/");
  return null;
}

/**
 * The forms also work before the page's JavaScript has loaded (a native POST here): the same
 * validation, rate limits and session as POST /api/login and /api/register, then a redirect to /.
 * Without this a pre-hydration submit would be a GET that puts the password in the URL.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const app = context.app;
  const form = await readCredentialsForm(request).catch(() => new FormData());
  const intent = form.get("intent") === "register" ? "register" : "login";
  const field = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  try {
    let userId: string;
    if (intent === "register") {
      const input = parseInput(RegisterSchema, {
        email: field("email"),
        password: field("password"),
        firstName: field("firstName"),
        lastName: field("lastName"),
      });
      userId = (await withRegistrationLimit(app, request, () => registerUser(app, input))).id;
    } else {
      const input = parseInput(LoginSchema, { email: field("email"), password: field("password") });
      userId = (await withLoginLimits(app, request, input.email, () => verifyLogin(app, input))).id;
    }
    return redirect("/", { headers: { "Set-Cookie": await createUserSession(app, userId) } });
  } catch (error) {
    if (error instanceof AppError) {
      const retryAfter = error.toResponse().headers.get("Retry-After");
      return data(
        { intent, error: error.message },
        { status: error.status, headers: retryAfter ? { "Retry-After": retryAfter } : undefined },
      );
    }
    throw error;
  }
}

const BENEFITS = [
  "Search PubMed, Crossref, Europe PMC, CORE, Semantic Scholar and DOAJ at once",
  "AI summaries of each study, labelled with the model that wrote them",
  "Bookmarks, saved searches and your search history in one place",
  "Meta-analysis reports with PRISMA-style flow and quality grading",
];

export default function AuthPage() {
  const [searchParams] = useSearchParams();
  const defaultTab = searchParams.get("tab") === "create" ? "create" : "signin";

  return (
    <div className="mx-auto grid max-w-6xl gap-10 px-4 py-12 sm:px-6 lg:grid-cols-2 lg:items-center lg:gap-16 lg:py-20">
      <section>
        <h1 className="text-3xl font-bold tracking-tight text-balance text-slate-900 sm:text-4xl">
          Evidence-based answers, faster
        </h1>
        <p className="mt-4 text-lg text-slate-600">
          Sign in to keep your research together, or create a free account in a few seconds.
        </p>
        <ul className="mt-8 hidden space-y-4 sm:block">
          {BENEFITS.map((benefit) => (
            <li key={benefit} className="flex gap-3 text-slate-700">
              <CircleCheck className="mt-0.5 size-5 shrink-0 text-brand-600" aria-hidden />
              {benefit}
            </li>
          ))}
        </ul>
        <p className="mt-8 hidden text-sm text-slate-500 sm:block">The Free plan needs no payment details.</p>
      </section>

      <div className="w-full max-w-md justify-self-center lg:justify-self-end">
        <Card>
          <CardContent className="pt-6">
            <Tabs defaultValue={defaultTab}>
              <TabsList className="grid w-full grid-cols-2">
                <TabsTrigger value="signin">Sign In</TabsTrigger>
                <TabsTrigger value="create">Create Account</TabsTrigger>
              </TabsList>
              <TabsContent value="signin">
                <SignInForm />
              </TabsContent>
              <TabsContent value="create">
                <CreateAccountForm />
              </TabsContent>
            </Tabs>
          </CardContent>
        </Card>
        <p className="mt-6 text-center text-sm text-slate-600">
          Just looking?{" "}
          <Link
            to="/search"
            className="inline-flex items-center gap-1 font-medium text-brand-600 hover:text-brand-700 hover:underline"
          >
            Continue as Guest
            <ArrowRight className="size-3.5" aria-hidden />
          </Link>
        </p>
      </div>
    </div>
  );
}

type FieldErrors = Partial<Record<"email" | "password", string>>;

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** SPEC §5 login and registration rules, with the spec's messages. */
function validateCredentials(email: string, password: string): FieldErrors {
  const errors: FieldErrors = {};
  if (!EMAIL_PATTERN.test(email)) errors.email = "Invalid email address";
  if (password.length < 6) errors.password = "Password must be at least 6 characters";
  return errors;
}

/** Posts JSON with the session cookie; a failure carries the server's message when it sent one. */
async function postJson(url: string, body: unknown): Promise<{ ok: true } | { ok: false; message?: string }> {
  try {
    const response = await fetch(url, {
      method: "POST",
      credentials: "include",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    });
    if (response.ok) return { ok: true };
    const data: unknown = await response.json().catch(() => null);
    const message =
      data && typeof data === "object" && "message" in data && typeof data.message === "string"
        ? data.message
        : undefined;
    return { ok: false, message };
  } catch (error) {
    console.warn(`Request to ${url} failed`, error);
    return { ok: false };
  }
}

/** Reads and validates the form; focuses the first invalid field. Returns null when invalid. */
function readCredentials(
  form: HTMLFormElement,
  setErrors: (errors: FieldErrors) => void,
): { data: FormData; email: string; password: string } | null {
  const data = new FormData(form);
  const email = String(data.get("email") ?? "").trim();
  const password = String(data.get("password") ?? "");
  const errors = validateCredentials(email, password);
  setErrors(errors);
  const firstInvalid = (["email", "password"] as const).find((field) => errors[field]);
  if (!firstInvalid) return { data, email, password };
  const input = form.elements.namedItem(firstInvalid);
  if (input instanceof HTMLInputElement) input.focus();
  return null;
}

function SignInForm() {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = readCredentials(event.currentTarget, setErrors);
    if (!input) return;
    setPending(true);
    const result = await postJson("/api/login", { email: input.email, password: input.password });
    if (result.ok) {
      toastAfterNavigation({ title: "Welcome back!", description: "You are now signed in." });
      window.location.assign("/");
      return;
    }
    setPending(false);
    toast({
      title: "Sign In Failed",
      description: result.message ?? "Invalid email or password",
      variant: "destructive",
    });
  }

  return (
    <form method="post" noValidate onSubmit={onSubmit} className="space-y-4" aria-label="Sign in">
      <input type="hidden" name="intent" value="login" />
      <ServerError intent="login" />
      <Field
        id="signin-email"
        label="Email"
        name="email"
        type="email"
        autoComplete="email"
        error={errors.email}
        onChange={() => setErrors((e) => ({ ...e, email: undefined }))}
      />
      <Field
        id="signin-password"
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        error={errors.password}
        onChange={() => setErrors((e) => ({ ...e, password: undefined }))}
      />
      <div className="text-right text-sm">
        <Link to="/forgot-password" className="font-medium text-brand-700 hover:underline">
          Forgot your password?
        </Link>
      </div>
      <Button type="submit" className="w-full" disabled={pending}>
        {pending ? "Signing In..." : "Sign In"}
      </Button>
    </form>
  );
}

function CreateAccountForm() {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = readCredentials(event.currentTarget, setErrors);
    if (!input) return;
    const firstName = String(input.data.get("firstName") ?? "").trim();
    const lastName = String(input.data.get("lastName") ?? "").trim();
    setPending(true);
    const result = await postJson("/api/register", {
      email: input.email,
      password: input.password,
      ...(firstName && { firstName }),
      ...(lastName && { lastName }),
    });
    if (result.ok) {
      toastAfterNavigation({ title: "Account created", description: "Welcome to MetaMind!" });
      window.location.assign("/");
      return;
    }
    setPending(false);
    toast({
      title: "Registration Failed",
      description: result.message ?? "Unable to create account",
      variant: "destructive",
    });
  }

  return (
    <form method="post" noValidate onSubmit={onSubmit} className="space-y-4" aria-label="Create account">
      <input type="hidden" name="intent" value="register" />
      <ServerError intent="register" />
      <Field
        id="register-email"
        label="Email"
        name="email"
        type="email"
        autoComplete="email"
        error={errors.email}
        onChange={() => setErrors((e) => ({ ...e, email: undefined }))}
      />
      <Field
        id="register-password"
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        error={errors.password}
        onChange={() => setErrors((e) => ({ ...e, password: undefined }))}
      />
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id="register-first-name" label="First name (optional)" name="firstName" autoComplete="given-name" />
        <Field id="register-last-name" label="Last name (optional)" name="lastName" autoComplete="family-name" />
      </div>
      <Button type="submit" className="w-full" disabled={pending}>
        {pending ? "Creating Account..." : "Create Account"}
      </Button>
    </form>
  );
}

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  id: string;
  label: string;
  error?: string;
}

function Field({ id, label, error, ...inputProps }: FieldProps) {
  const errorId = `${id}-error`;
  return (
    <div className="space-y-1.5">
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        {...inputProps}
      />
      {error && (
        <p id={errorId} className="text-sm text-red-600">
          {error}
        </p>
      )}
    </div>
  );
}

/** The error of a form posted before hydration (the action's answer), shown above that form. */
function ServerError({ intent }: { intent: "login" | "register" }) {
  const data = useActionData<{ intent: string; error: string }>();
  if (!data || data.intent !== intent) return null;
  return (
    <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700">
      {data.error}
    </p>
  );
}
