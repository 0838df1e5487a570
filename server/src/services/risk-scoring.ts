// The scoring rules are pure and live in domain/ (repositories read them too); kept here for existing imports.
export * from '../domain/risk-scoring.ts';
