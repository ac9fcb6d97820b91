import { NotFound } from "~/components/not-found";

export async function loader() {
  return new Response(null, { status: 404 });
}

export default function CatchAll() {
  return <NotFound />;
}
