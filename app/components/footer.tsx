export function Footer() {
  return <footer className="border-t bg-white py-6 text-center text-sm text-slate-500">MetaMind</footer>;
}
