import fp from 'fastify-plugin';

// Placeholder: Idempotency-Key replay protection is being written (service-worker issue).
export default fp(async () => {}, { name: 'idempotency' });
