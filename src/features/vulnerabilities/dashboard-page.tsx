// Not built yet (issue 6): placeholder so the route exists while the screen is written.
export default function VulnerabilityDashboardPage() {
  return (
    <section className="page">
      <h1>Vulnérabilités</h1>
      <p>Écran en cours de construction.</p>
    </section>
  );
}
