import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ACCESS_COOKIE, CSRF_COOKIE } from '../../../plugins/app/authentication.ts';
import { ACCESS_TOKEN_TTL_S } from '../../../lib/tokens.ts';

/**
 * The access token also travels as an HttpOnly cookie so that sendBeacon (which cannot set headers)
 * is authenticated; the readable csrftoken cookie is the double-submit secret for cookie writes.
 */
export function setSessionCookies(request: FastifyRequest, reply: FastifyReply, access: string): void {
  const secure = request.protocol === 'https';
  reply.setCookie(ACCESS_COOKIE, access, {
    path: '/api',
    httpOnly: true,
    sameSite: 'strict',
    secure,
    maxAge: ACCESS_TOKEN_TTL_S,
  });
  const csrf = request.cookies[CSRF_COOKIE] ?? randomBytes(24).toString('base64url');
  reply.setCookie(CSRF_COOKIE, csrf, { path: '/', httpOnly: false, sameSite: 'lax', secure, maxAge: 7 * 24 * 3600 });
}

export function clearSessionCookies(reply: FastifyReply): void {
  reply.clearCookie(ACCESS_COOKIE, { path: '/api' });
}
