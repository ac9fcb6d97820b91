import { Link } from "@remix-run/react";
import House from "lucide-react/icons/house";
import Search from "lucide-react/icons/search";
import { Button } from "~/components/ui/button";

export function NotFound() {
  return (
    <div className="mx-auto flex max-w-xl flex-col items-center px-4 py-24 text-center">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">404 Page Not Found</h1>
      <p className="mt-3 text-slate-600">The page you are looking for does not exist or has moved.</p>
      <div className="mt-8 flex flex-wrap justify-center gap-3">
        <Button asChild>
          <Link to="/">
            <House aria-hidden />
            Go to the home page
          </Link>
        </Button>
        <Button asChild variant="outline">
          <Link to="/search">
            <Search aria-hidden />
            Search Studies
          </Link>
        </Button>
      </div>
    </div>
  );
}
