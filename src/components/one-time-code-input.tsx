import type { InputHTMLAttributes } from 'react';

/** A two-factor code input: numeric keyboard, the browser's one-time-code autofill, six digits, nothing else kept. */
export function OneTimeCodeInput({
  value,
  onChange,
  ...attributes
}: {
  value: string;
  onChange: (code: string) => void;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>) {
  return (
    <input
      {...attributes}
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={6}
      value={value}
      onChange={(e) => onChange(e.target.value.replace(/\D/g, ''))}
    />
  );
}
