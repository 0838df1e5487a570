import { useState, type InputHTMLAttributes } from 'react';

const FRENCH = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar day typed as jj/mm/aaaa (or as the API's AAAA-MM-JJ), as 'YYYY-MM-DD'; null when it is no real day. */
export function isoDay(text: string): string | null {
  const t = text.trim();
  const fr = FRENCH.exec(t);
  const iso = ISO.exec(t);
  const [y, m, d] = fr ? [fr[3], fr[2], fr[1]] : iso ? [iso[1], iso[2], iso[3]] : [];
  if (!y || !m || !d) return null;
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  if (date.getUTCFullYear() !== Number(y) || date.getUTCMonth() !== Number(m) - 1 || date.getUTCDate() !== Number(d))
    return null;
  return `${y}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`;
}

/** 'YYYY-MM-DD' as jj/mm/aaaa; anything else as it is. */
export function frenchDay(value: string): string {
  const iso = ISO.exec(value);
  return iso ? `${iso[3]}/${iso[2]}/${iso[1]}` : value;
}

export const INVALID_DAY = 'Date invalide : saisissez jj/mm/aaaa.';

/** What the form holds for a typed text: the day, '' when empty, else the text as typed. */
function valueOf(text: string): string {
  return text.trim() === '' ? '' : (isoDay(text) ?? text);
}

/**
 * A date field in French whatever the browser's language (a native date input follows the browser's: mm/dd/yyyy in
 * an English one). It shows and takes jj/mm/aaaa and hands the form 'YYYY-MM-DD', '' when empty, or the text as
 * typed when it is no date (the browser then refuses the form with a French message, the server with its own).
 */
export function DateInput({
  value,
  onValue,
  min: _min,
  max: _max,
  ...attributes
}: { value: string; onValue: (value: string) => void } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'value' | 'onChange' | 'type'
>) {
  const [text, setText] = useState(() => frenchDay(value));
  // A value set from outside (a reset, a record loaded) shows; what is being typed stays as typed.
  if (value !== valueOf(text) && frenchDay(value) !== text) setText(frenchDay(value));
  return (
    <input
      {...attributes}
      type="text"
      inputMode="numeric"
      placeholder="jj/mm/aaaa"
      autoComplete="off"
      maxLength={10}
      value={text}
      onChange={(e) => {
        const typed = e.target.value;
        e.target.setCustomValidity(isoDay(typed) || !typed.trim() ? '' : INVALID_DAY);
        setText(typed);
        onValue(valueOf(typed));
      }}
    />
  );
}
