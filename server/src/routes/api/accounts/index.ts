import type { FastifyPluginAsync } from 'fastify';
import { AccountsRepository } from '../../../repositories/accounts.ts';
import { createMailer } from '../../../services/mailer.ts';
import { PasswordService } from '../../../services/passwords.ts';
import { TwoFactorService } from '../../../services/two-factor.ts';
import newAccount from './new-account.ts';
import profile from './profile.ts';
import twoFactor from './two-factor.ts';
import password from './password.ts';

/** Self-service identity: registration, own profile, admin creation, second factor, password. */
const accounts: FastifyPluginAsync = async (app) => {
  // Accounts are platform data: the owner connection, never a tenant-scoped one.
  const repo = new AccountsRepository(app.database.db);
  await app.register(newAccount, { repo });
  await app.register(profile, { repo });
  await app.register(twoFactor, { service: new TwoFactorService(repo, app.secretBox) });
  await app.register(password, { service: new PasswordService(repo, createMailer(app.database.db)) });
};

export default accounts;
