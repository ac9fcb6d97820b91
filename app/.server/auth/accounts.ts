import { eq } from "drizzle-orm";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { z } from "zod";
import { users, type UserRow } from "../../../db/schema";
import type { AppServices } from "../context";
import { AppError, describeZodError } from "../http/errors";
import { readCappedText, readJson } from "../http/json-body";
import { hashPassword, verifyPassword } from "./password";

/** SPEC §5 login rules. */
export const LoginSchema = z.object({
  email: z
    .string({ error: "Invalid email address" })
    .trim()
    .toLowerCase()
    .pipe(z.email({ error: "Invalid email address" }).max(254, "Invalid email address")),
  password: z
    .string({ error: "Password must be at least 6 characters" })
    .min(6, "Password must be at least 6 characters")
    .max(1024, "Password is too long"),
});

/** SPEC §5 registration rules: login rules plus optional names. */
export const RegisterSchema = LoginSchema.extend({
  firstName: z
    .string()
    .trim()
    .max(100)
    .optional()
    .transform((v) => v || null),
  lastName: z
    .string()
    .trim()
    .max(100)
    .optional()
    .transform((v) => v || null),
});

// Hash of a random password, verified against when the e-mail is unknown so that response time
// does not reveal which e-mails have accounts.
let dummyHash: Promise<string> | null = null;

/**
 * Checks an e-mail/password pair. Returns the user, or throws 401 INVALID_CREDENTIALS with the
 * spec's 'Invalid email or password'.
 */
export async function verifyLogin(app: Pick<AppServices, "db">, input: z.infer<typeof LoginSchema>): Promise<UserRow> {
  const [user] = await app.db.select().from(users).where(eq(users.email, input.email)).limit(1);
  if (!user) {
    dummyHash ??= hashPassword(crypto.randomUUID());
    await verifyPassword(input.password, await dummyHash);
    throw new AppError("INVALID_CREDENTIALS", "Invalid email or password", 401);
  }
  if (!(await verifyPassword(input.password, user.passwordHash))) {
    throw new AppError("INVALID_CREDENTIALS", "Invalid email or password", 401);
  }
  return user;
}

/**
 * Creates a Free account. Throws 409 EMAIL_TAKEN when the e-mail is registered.
 */
export async function registerUser(
  app: Pick<AppServices, "db">,
  input: z.infer<typeof RegisterSchema>,
  plan: "free" | "pro" = "free",
): Promise<UserRow> {
  const passwordHash = await hashPassword(input.password);
  const rows = await app.db
    .insert(users)
    .values({
      id: crypto.randomUUID(),
      email: input.email,
      passwordHash,
      firstName: input.firstName,
      lastName: input.lastName,
      plan,
    })
    .onConflictDoNothing({ target: users.email })
    .returning();
  const user = rows[0];
  if (!user) throw new AppError("EMAIL_TAKEN", "An account with this email already exists", 409);
  return user;
}

/** Largest login/register body: an e-mail, a password and two names fit easily. */
const MAX_CREDENTIALS_BYTES = 16 * 1024;

/**
 * Reads {email, password} from a JSON or form body into FormData, so one remix-auth form strategy
 * serves both the JSON API and plain HTML forms.
 */
export async function readCredentialsForm(request: Request): Promise<FormData> {
  const type = request.headers.get("Content-Type") ?? "";
  if (type.includes("application/json")) {
    const body = await readJson(request, { maxBytes: MAX_CREDENTIALS_BYTES, maxDepth: 4 });
    const form = new FormData();
    if (body && typeof body === "object") {
      for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
        if (typeof v === "string") form.set(k, v);
      }
    }
    return form;
  }
  if (type.includes("application/x-www-form-urlencoded")) {
    const form = new FormData();
    for (const [k, v] of new URLSearchParams(await readCappedText(request, MAX_CREDENTIALS_BYTES))) form.set(k, v);
    return form;
  }
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (declared > MAX_CREDENTIALS_BYTES) {
    throw new AppError("PAYLOAD_TOO_LARGE", "The request body is too large.", 413, { maxBytes: MAX_CREDENTIALS_BYTES });
  }
  try {
    return await request.formData();
  } catch {
    throw new AppError("INVALID_INPUT", "Expected a JSON or form body.", 400);
  }
}

/**
 * The remix-auth authenticator with the e-mail/password form strategy ("user-pass").
 * Validation failures are 400 INVALID_INPUT with the spec's messages.
 */
export function createAuthenticator(app: Pick<AppServices, "db">): Authenticator<UserRow> {
  const authenticator = new Authenticator<UserRow>();
  authenticator.use(
    new FormStrategy(async ({ form }) => {
      const parsed = LoginSchema.safeParse({
        email: form.get("email") ?? undefined,
        password: form.get("password") ?? undefined,
      });
      if (!parsed.success) {
        throw new AppError("INVALID_INPUT", describeZodError(parsed.error), 400);
      }
      return verifyLogin(app, parsed.data);
    }),
    "user-pass",
  );
  return authenticator;
}
