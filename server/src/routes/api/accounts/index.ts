import type { FastifyPluginAsync } from 'fastify';
import { AccountsRepository } from '../../../repositories/accounts.ts';
import { createMailer } from '../../../services/mailer.ts';
import newAccount from './new-account.ts';
import profile from './profile.ts';
import twoFactor from './two-factor.ts';
import password from './password.ts';

/** Self-service identity: registration, own profile, admin creation, second factor, password. */
const accounts: FastifyPluginAsync = async (app) => {
  // Accounts are platform data: the owner connection, never a tenant-scoped one.
  const repo = new AccountsRepository(app.database.db);
  const mailer = createMailer(app.database.db);
  await app.register(newAccount, { repo });
  await app.register(profile, { repo });
  await app.register(twoFactor, { repo });
  await app.register(password, { repo, mailer });
};

export default accounts;
