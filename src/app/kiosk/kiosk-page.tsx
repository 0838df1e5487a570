// Not built yet (issue 6): placeholder so the route exists while the screen is written.
export default function KioskPage() {
  return (
    <section className="page">
      <h1>Mode kiosque</h1>
      <p>Écran en cours de construction.</p>
    </section>
  );
}
