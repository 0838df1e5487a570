import { act, useState } from 'react';
import { describe, expect, it } from 'vitest';
import { setupScreen, typeInto } from './screen-helpers.tsx';
import { frenchDay, INVALID_DAY, isoDay } from '../../src/components/date-input.tsx';
import { TextField } from '../../src/components/form-field.tsx';
import { useForm } from '../../src/lib/use-form.ts';

const screen = setupScreen();

describe('French day parsing', () => {
  it('reads jj/mm/aaaa (and the API’s form), refuses days that do not exist', () => {
    expect(isoDay('05/03/2026')).toBe('2026-03-05');
    expect(isoDay(' 5/3/2026 ')).toBe('2026-03-05');
    expect(isoDay('05.03.2026')).toBe('2026-03-05');
    expect(isoDay('2026-03-05')).toBe('2026-03-05');
    expect(isoDay('29/02/2028')).toBe('2028-02-29');
    for (const bad of ['29/02/2026', '31/04/2026', '03/05', '2026/03/05', '12/31/2026', 'demain', ''])
      expect(isoDay(bad), bad).toBeNull();
    expect(frenchDay('2026-12-31')).toBe('31/12/2026');
    expect(frenchDay('')).toBe('');
  });
});

function Harness() {
  const form = useForm({ due: '2026-11-28' }, { id: 'h' });
  const [, force] = useState(0);
  return (
    <form>
      <output>{form.values.due}</output>
      <TextField form={form} name="due" label="Échéance" type="date" />
      <button type="button" onClick={() => (form.setValues({ due: '2027-01-15' }), force((n) => n + 1))}>
        Réinitialiser
      </button>
    </form>
  );
}

const due = () => screen.container.querySelector('output')!.textContent;

describe('a date field', () => {
  it('shows jj/mm/aaaa whatever the browser’s language and hands the form the API’s day', async () => {
    await screen.render(<Harness />);
    const input = screen.container.querySelector<HTMLInputElement>('#h-due')!;
    expect(input.type).toBe('text');
    expect(input.placeholder).toBe('jj/mm/aaaa');
    expect(input.value).toBe('28/11/2026');
    typeInto(input, '3/1/2027');
    expect(due()).toBe('2027-01-03');
    expect(input.value).toBe('3/1/2027');
    expect(input.validationMessage).toBe('');
    typeInto(input, '31/02/2027');
    expect(due()).toBe('31/02/2027');
    expect(input.validationMessage).toBe(INVALID_DAY);
    typeInto(input, '');
    expect(due()).toBe('');
    act(() => screen.container.querySelector('button')!.click());
    expect(input.value).toBe('15/01/2027');
  });
});
