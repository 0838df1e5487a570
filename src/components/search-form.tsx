import { useId, useState, type FormEvent } from 'react';

/** A search box submitted with its button; follows `value` when it changes from outside (e.g. the URL). */
export function SearchForm({
  label,
  className,
  value = '',
  onSearch,
}: {
  label: string;
  className: string;
  value?: string;
  onSearch: (text: string) => void;
}) {
  const id = useId();
  const [text, setText] = useState(value);
  const [prevValue, setPrevValue] = useState(value);
  if (value !== prevValue) {
    setPrevValue(value);
    setText(value);
  }
  return (
    <form
      role="search"
      className={className}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onSearch(text.trim());
      }}
    >
      <label htmlFor={`${id}-q`}>
        {label}
        <input id={`${id}-q`} type="search" value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <button type="submit" className="btn secondary">
        Rechercher
      </button>
    </form>
  );
}
