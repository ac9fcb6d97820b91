export default function Index() {
  return <div className="p-8">MetaMind</div>;
}
