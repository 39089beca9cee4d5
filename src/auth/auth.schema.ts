/** Request and response schemas of the token endpoints and GET /api/user. */
import { Type, type Static } from 'typebox';
import { ROLES } from '../shared/roles.js';

export const TokenQuerySchema = Type.Object({
  key: Type.String({ description: 'The API key to exchange' }),
});

export const TokenResponseSchema = Type.Object({
  token: Type.String({ description: 'JWT bearer token' }),
  access_token: Type.String({ description: 'Same value as token' }),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the token expires' }),
});
export type TokenResponse = Static<typeof TokenResponseSchema>;

export const UserSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    email: Type.String({ format: 'email' }),
    role: Type.Object({ name: Type.Union(ROLES.map((r) => Type.Literal(r))) }),
  },
  { $id: 'User' },
);

export function tokenResponse(issued: { token: string; expiresIn: number }): TokenResponse {
  return { token: issued.token, access_token: issued.token, token_type: 'bearer', expires_in: issued.expiresIn };
}
