// GET /: service information and links to the documents an agent or operator needs.
import type { Static } from '@sinclair/typebox';
import { PATHS, SERVICE, VERSIONS } from '../../catalogue/published-facts.js';
import { PUBLIC_DOCUMENTS } from '../documents/public-documents.js';
import { json } from '../../http/responses.js';
import type { Route } from '../../http/types.js';
import type { PublishedKey } from '../../audit/proof/checkpoint.js';
import type { ServiceInfo as ServiceInfoBody } from '../../schemas/operations.js';
import type { PermitSigner } from '../../schemas/permits.js';

export interface ServiceInfo {
  chainId: number;
  store: 'lmdb' | 'memory' | 'redis';
  auditKey: PublishedKey;
  permitSigner: PermitSigner;
}

export function rootRoutes(info: ServiceInfo): Route[] {
  const body: Static<typeof ServiceInfoBody> = {
    name: SERVICE.name,
    version: VERSIONS.service,
    api_version: VERSIONS.api,
    description: SERVICE.description,
    chain: { id: info.chainId, caip2: `eip155:${info.chainId}`, name: SERVICE.chain.name },
    store: info.store,
    links: {
      assets: PATHS.assets,
      analyze_free: PATHS.analyzeFree,
      demo_analyze: PATHS.demoAnalyze,
      health: PATHS.health,
      ...Object.fromEntries(PUBLIC_DOCUMENTS.map((document) => [document.key, document.path])),
      // Named so since before the HTML page existed: clients read the Markdown here.
      methodology: PATHS.methodology,
      methodology_html: PATHS.methodologyHtml,
    },
    audit_key: info.auditKey,
    permit_signer: info.permitSigner,
  };
  return [{ method: 'get', pattern: PATHS.root, handler: () => json(200, body) }];
}
