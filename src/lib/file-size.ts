const NUMBER = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });

/** '512 o', '12,5 Ko', '3,2 Mo' */
export function formatFileSize(bytes: number | null | undefined): string {
  const b = bytes ?? 0;
  if (b < 1024) return `${NUMBER.format(b)} o`;
  if (b < 1024 * 1024) return `${NUMBER.format(b / 1024)} Ko`;
  return `${NUMBER.format(b / (1024 * 1024))} Mo`;
}
