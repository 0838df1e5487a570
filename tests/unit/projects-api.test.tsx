import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { json, setupScreen } from './screen-helpers.tsx';
import { ApiError, setClientEnvironment } from '../../src/lib/api-client.ts';
import {
  createProject,
  getProject,
  listProjects,
  listRisks,
  updateActionProgress,
  updateTaskProgress,
} from '../../src/features/projects/projects-api.ts';
import {
  createError,
  PROJECT_MESSAGES,
  projectError,
  unexpectedMessage,
} from '../../src/features/projects/project-http.ts';

const screen = setupScreen();

const CONNECTION =
  "Erreur de connexion au backend Vigie. Merci de vérifier votre accès réseau ou de contacter l'administrateur.";

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected a failure');
}

describe('spec §8 project error messages', () => {
  it('no answer at all: the connection message', async () => {
    screen.handler = () => {
      throw new TypeError('Failed to fetch');
    };
    const err = await failure(getProject(4));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe(CONNECTION);
    expect(err.status).toBe(0);
  });

  it('other errors: the call named, then the cause', async () => {
    screen.handler = () => json({ detail: 'Ressource introuvable.', code: 'not_found' }, 404);
    const err = await failure(getProject(4));
    expect(err.message).toBe("Erreur inattendue lors de l'appel API lecture du projet : Ressource introuvable.");
    expect(err.status).toBe(404);
  });

  it('« Erreur inconnue. » when there is no cause', () => {
    expect(unexpectedMessage('lecture du projet')).toBe(
      "Erreur inattendue lors de l'appel API lecture du projet : Erreur inconnue.",
    );
    expect(projectError(new Error(''), 'lecture du projet').message).toBe(
      "Erreur inattendue lors de l'appel API lecture du projet : Erreur inconnue.",
    );
  });

  it('a 403 is passed on untouched (with the server’s message) for the auth layer', async () => {
    screen.handler = () => json({ detail: 'Accès refusé.', code: 'permission_denied' }, 403);
    const err = await failure(updateTaskProgress(8, 50));
    expect(err.status).toBe(403);
    expect(err.message).toBe('Accès refusé.');
  });

  it('create: « Erreur: {detail} » from the server, else the generic message', async () => {
    screen.handler = () =>
      json({ detail: 'Le nom est obligatoire.', fields: { name: ['Le nom est obligatoire.'] } }, 400);
    const err = await failure(createProject({ name: '' }));
    expect(err.message).toBe('Erreur: Le nom est obligatoire.');
    expect(err.fields).toEqual({ name: ['Le nom est obligatoire.'] });
    expect(createError(new ApiError(500, 'Backend connection failed')).message).toBe(PROJECT_MESSAGES.createFailed);
    expect(createError(new Error('boom')).message).toBe('Erreur lors de la création du projet. Veuillez réessayer.');
  });

  it('a failing list resolves with an empty list and the error', async () => {
    screen.handler = () => {
      throw new TypeError('Failed to fetch');
    };
    const result = await listRisks({ project: 4 });
    expect(result.data).toEqual({ count: 0, next: null, previous: null, results: [] });
    expect(result.error).toBe(CONNECTION);
  });

  it('accepts a plain array as a list', async () => {
    screen.handler = () => json([{ id: 1, name: 'A' }]);
    const result = await listProjects({});
    expect(result.data.count).toBe(1);
    expect(result.error).toBeNull();
  });
});

describe('project calls', () => {
  it('writes are queueable, with an idempotency key', async () => {
    const headers: Headers[] = [];
    setClientEnvironment({
      fetch: async (_input: RequestInfo | URL, init?: RequestInit) => {
        headers.push(new Headers(init?.headers));
        return json({ id: 3, progress: 60 });
      },
    });
    await updateActionProgress(3, 60);
    expect(headers[0]!.get('x-vigie-queueable')).toBe('1');
    expect(headers[0]!.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a write stored offline by the service worker says so', async () => {
    screen.handler = () =>
      json({ detail: 'Modification enregistrée hors ligne.', queued: true }, 202, { 'x-vigie-source': 'queued' });
    const result = await updateTaskProgress(8, 50);
    expect(result).toEqual({ queued: true, data: null, message: 'Modification enregistrée hors ligne.' });
  });

  it('a project call gives up after 5 s; the list waits longer', async () => {
    vi.useFakeTimers();
    try {
      const pending = (_input: RequestInfo | URL, init?: RequestInit) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        });
      setClientEnvironment({ fetch: pending });
      let projectError: ApiError | undefined;
      let listSettled = false;
      void getProject(1).catch((e: unknown) => (projectError = e as ApiError));
      void listProjects({}).then(() => (listSettled = true));
      await act(async () => {
        await vi.advanceTimersByTimeAsync(5_100);
      });
      expect(projectError?.message).toBe(CONNECTION);
      expect(listSettled).toBe(false);
      await act(async () => {
        await vi.advanceTimersByTimeAsync(30_000);
      });
      expect(listSettled).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
