/** The account entry of the web application: sign-in, sign-up, email verification, password reset. */
import type { FastifyInstance } from 'fastify';
import { signInRoutes } from './sign-in.routes.js';
import { signUpRoutes } from './sign-up.routes.js';
import { verifyEmailRoutes } from './verify-email.routes.js';
import { passwordResetRoutes } from './password-reset.routes.js';

/** Registers every page of the account entry in the web scope. */
export async function accountEntryRoutes(app: FastifyInstance): Promise<void> {
  await signInRoutes(app);
  await signUpRoutes(app);
  await verifyEmailRoutes(app);
  await passwordResetRoutes(app);
}
