import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/lib/api-client.ts';
import { messageOf, UserMessageError } from '../../src/lib/error-message.ts';
import { FormError } from '../../src/lib/auth/account.ts';

describe('messageOf: the one way a screen words a failure', () => {
  it('says the API’s French message, or its first field message for one-line forms', () => {
    const err = new ApiError(400, 'Données invalides.', { fields: { password: ['Trop court.'] } });
    expect(messageOf(err)).toBe('Données invalides.');
    expect(messageOf(err, { firstField: true })).toBe('Trop court.');
    expect(messageOf(new ApiError(500, 'Backend connection failed'), { firstField: true })).toBe(
      'Backend connection failed',
    );
  });

  it('says the message of errors written for the user (form refusals), never an exception’s own text', () => {
    expect(messageOf(new FormError('Email requis'))).toBe('Email requis');
    expect(messageOf(new UserMessageError('Téléchargement interrompu.'))).toBe('Téléchargement interrompu.');
    expect(messageOf(new TypeError("Cannot read properties of null (reading 'name')"))).toBe('Erreur inattendue.');
    expect(messageOf('boom')).toBe('Erreur inattendue.');
  });
});
