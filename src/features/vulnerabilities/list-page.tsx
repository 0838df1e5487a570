// Not built yet (issue 6): placeholder so the route exists while the screen is written.
export default function VulnerabilityListPage() {
  return (
    <section className="page">
      <h1>Liste des vulnérabilités</h1>
      <p>Écran en cours de construction.</p>
    </section>
  );
}
