import { useMemo } from 'react';
import { create } from 'qrcode';

/**
 * A QR code drawn as one SVG path (no canvas, no inline markup: nothing for the CSP to refuse), black on white with
 * the quiet zone scanners need, whatever the theme.
 */
export function QrCode({ value, label, size = 184 }: { value: string; label: string; size?: number }) {
  const path = useMemo(() => {
    const { modules } = create(value, { errorCorrectionLevel: 'M' });
    const n = modules.size;
    let d = '';
    for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) if (modules.get(x, y)) d += `M${x + 4} ${y + 4}h1v1h-1z`;
    return { d, side: n + 8 };
  }, [value]);
  return (
    <svg
      className="qr-code"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${path.side} ${path.side}`}
      width={size}
      height={size}
      shapeRendering="crispEdges"
    >
      <rect width={path.side} height={path.side} fill="#fff" />
      <path d={path.d} fill="#000" />
    </svg>
  );
}

/** A long secret cut in groups of four, for reading and typing back. */
export const grouped = (secret: string): string => secret.match(/.{1,4}/g)?.join(' ') ?? secret;
