export function NotFound() {
  return (
    <div className="mx-auto max-w-2xl px-4 py-16 text-center">
      <h1 className="text-3xl font-bold">404 Page Not Found</h1>
      <a href="/" className="mt-6 inline-block text-brand-600 underline">Go home</a>
    </div>
  );
}
