import type { Project } from '../../../src/features/projects/project-types.ts';

// Project 7 and what hangs off it, as the API sends them; a test changes only what it is about.

/** Project 7, « Audit du SI de production », owned by Claire Moreau (no access given: read only). */
export function projectFixture(extra: Partial<Project> = {}): Project {
  return {
    id: 7,
    name: 'Audit du SI de production',
    description: null,
    status: 'IN_PROGRESS',
    priority: 'HIGH',
    completion_percentage: 45,
    start_date: null,
    deadline: null,
    created_at: '2025-02-24T10:12:00Z',
    updated_at: '2025-06-02T15:40:00Z',
    assets: [],
    vulnerabilities: [],
    tasks: [201],
    team_members: [],
    owner: { id: 3, name: 'Claire Moreau', email: 'claire@example.fr' },
    is_active: true,
    ...extra,
  };
}

/** The creation and update times of the project's objects. */
export const STAMPS = { created_at: '2025-06-01T10:00:00Z', updated_at: '2025-06-01T10:00:00Z' };

/** Task 201 of project 7, in progress, with no due date unless given. */
export const taskFixture = (extra: { due_date?: string | null } = {}) => ({
  id: 201,
  project: 7,
  title: 'Revue des pare-feux',
  description: '',
  status: 'IN_PROGRESS',
  priority: 'HIGH',
  assignee: null,
  due_date: null as string | null,
  progress: 30,
  completed_at: null,
  is_overdue: false,
  ...STAMPS,
  ...extra,
});

/** Document 31 of project 7, an audit report. */
export const DOC = {
  id: 31,
  name: 'rapport.pdf',
  title: 'Rapport d’audit',
  file: '/api/projects/documents/31/download/',
  project: 7,
  description: '',
  document_type: 'REPORT',
  file_size: 204800,
  file_type: 'application/pdf',
  ...STAMPS,
};

/** The team of project 7: its owner Claire Moreau (ADMIN) and Karim Benali (MEMBER). */
export const MEMBERS = [
  { id: 3, name: 'Claire Moreau', email: 'claire@example.fr', role: 'ADMIN', is_owner: true, last_active: null },
  { id: 9, name: 'Karim Benali', email: 'karim@example.fr', role: 'MEMBER', is_owner: false, last_active: null },
];
