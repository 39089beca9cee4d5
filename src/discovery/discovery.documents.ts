/**
 * The discovery documents of DESIGN.md "Discovery and agents": RFC 9728 protected-resource
 * metadata, RFC 8414 authorization-server metadata with the auth.md `agent_auth` block, and the
 * MCP server card (SEP-2127 fields plus the older serverInfo/transport/authentication keys).
 */
import { SCOPES } from '../auth/scopes.js';

export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18'] as const;
export const SERVICE_NAME = 'Rampart';
export const SERVICE_DESCRIPTION = 'Self-hosted security scanning: scans, findings, targets, reports and webhooks.';

export function protectedResourceMetadata(base: string) {
  return {
    resource: base,
    resource_name: SERVICE_NAME,
    resource_documentation: `${base}/docs`,
    authorization_servers: [base],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
  };
}

export function authorizationServerMetadata(base: string) {
  return {
    issuer: base,
    token_endpoint: `${base}/api/token`,
    token_endpoint_auth_methods_supported: ['none'],
    response_types_supported: ['none'],
    scopes_supported: [...SCOPES],
    service_documentation: `${base}/docs`,
    agent_auth: {
      skill: `${base}/auth.md`,
      register_uri: `${base}/agent/auth`,
      claim_uri: `${base}/agent/auth/claim`,
      identity_types_supported: ['identity_assertion'],
      identity_assertion: { assertion_types_supported: ['verified_email'] },
      credential_types_supported: ['api_key'],
    },
  };
}

export function mcpServerCard(base: string, version: string) {
  const host = new URL(base).hostname.split('.').reverse().join('.');
  const authentication = { required: true, schemes: ['bearer'] };
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
    name: `${host}/rampart`,
    version,
    title: SERVICE_NAME,
    description: SERVICE_DESCRIPTION,
    websiteUrl: `${base}/docs`,
    remotes: [
      { type: 'streamable-http', url: `${base}/mcp`, supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS], authentication },
    ],
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: 'rampart', title: SERVICE_NAME, version },
    transport: { type: 'streamable-http', url: `${base}/mcp` },
    authentication: { ...authentication, token_endpoint: `${base}/api/token`, resource_metadata: `${base}/.well-known/oauth-protected-resource` },
  };
}
