// The bearer security scheme as the agent card and the OpenAPI document both declare it (A2A's schemes are OpenAPI's).
import { TOKEN_LIFETIME_S } from '../../auth/access-tokens.js';
import { PATHS } from '../../catalogue/published-facts.js';

/** How a client gets the token; each document may add what the token grants. */
export const BEARER_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description:
    `Access token from a wallet signature: GET ${PATHS.authNonce}?address=, sign the EIP-4361 message with personal_sign, ` +
    `POST ${PATHS.authWallet}. Valid ${TOKEN_LIFETIME_S} s.`,
} as const;
