const NUMBER = new Intl.NumberFormat('fr-FR');

/** A 0–100 progress bar; `value` null is an unknown progress. The percentage follows unless `showValue` is false. */
export function ProgressBar({
  label,
  value,
  showValue = true,
}: {
  label: string;
  value: number | null;
  showValue?: boolean;
}) {
  return (
    <div className="vm-progress">
      <div
        className="vm-progress-track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={value ?? undefined}
      >
        <span className="vm-progress-fill" style={{ width: `${value ?? 0}%` }} />
      </div>
      {showValue && <span>{NUMBER.format(value ?? 0)} %</span>}
    </div>
  );
}
