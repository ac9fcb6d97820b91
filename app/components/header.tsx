import type { PublicUser } from "~/.server/auth/session";

export function Header({ user }: { user: PublicUser | null }) {
  return (
    <header className="sticky top-0 z-40 border-b bg-white">
      <div className="mx-auto flex h-14 max-w-6xl items-center justify-between px-4">
        <a href="/" className="font-semibold">MetaMind</a>
        {user ? <span>{user.email}</span> : <a href="/auth">Sign In</a>}
      </div>
    </header>
  );
}
