/** The agent authentication guide served at /auth.md (the `agent_auth.skill` of the metadata). */
export function authGuide(base: string, limits: { perEmail: number; perClient: number; codeTtlSeconds: number }): string {
  const minutes = Math.round(limits.codeTtlSeconds / 60);
  return `# auth.md

This is Rampart, a security scanning service. It supports agentic registration by **verified
email**: you give the user's email address, the user reads you a one-time code from their inbox,
and you receive an API key for their account. Anonymous registration is not offered, and identity
assertions of the ID-JAG token type are not accepted.

Resource server and authorization server: \`${base}\`.

## 1. Discover

A request without a valid token answers \`401\` with

    WWW-Authenticate: Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"

Read \`authorization_servers\` there, then \`${base}/.well-known/oauth-authorization-server\` and
its \`agent_auth\` block: \`register_uri\`, \`claim_uri\`, \`identity_types_supported\`
(\`identity_assertion\`), \`identity_assertion.assertion_types_supported\` (\`verified_email\`),
\`credential_types_supported\` (\`api_key\`).

## 2. Register

    POST ${base}/agent/auth
    Content-Type: application/json

    {"identity_type": "identity_assertion", "assertion_type": "verified_email",
     "email": "user@example.com", "key_name": "my-agent"}

Answer \`202\` with \`registration_id\`, \`claim_token\` and \`expires_in\` (seconds). Keep the
\`claim_token\` to yourself: it is shown only in this answer, and only the holder of it can claim
the registration. The user receives an email with a six-digit code, valid for ${minutes} minutes.
The answer is the same whether or not the address already has an account.

At most ${limits.perEmail} codes are sent to one email address, and ${limits.perClient} from one client address, per
hour; beyond that the answer is \`429\` \`{"message":"Too Many Attempts."}\` with \`Retry-After\`
(seconds until a code can be sent again).

## 3. Claim

Ask the user for the code, then:

    POST ${base}/agent/auth/claim
    Content-Type: application/json

    {"registration_id": "<from step 2>", "claim_token": "<from step 2>", "code": "123456"}

Answer \`200\` with \`api_key\` (shown only this once: keep it secret), \`user\`, and
\`account_created\` (true when the address had no account yet; new accounts start on the trial
plan). A wrong code answers \`422\` on \`code\` with the attempts left; a claim token that is not
the one of this registration answers \`422\` on \`claim_token\`. After five wrong codes, or once the
code expires, start again.

## 4. Get a token and call the API

    POST ${base}/api/token?key=<api_key>

returns \`token\` (a JWT), \`token_type\` \`bearer\` and \`expires_in\`. Send
\`Authorization: Bearer <token>\` on every API request and on the MCP endpoint \`${base}/mcp\`.
Refresh with \`POST ${base}/api/refresh\` before it expires, or exchange the key again.
The API reference is at ${base}/docs (OpenAPI: ${base}/api/openapi.json).

## Revocation

The user deletes the key in Rampart (\`rampart key delete\`); further exchanges and refreshes with it
fail. Tokens already issued stay valid until they expire.
`;
}
