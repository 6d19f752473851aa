// The A2A channel as the composition root builds it: the request handler over the skills, behind its HTTP endpoint.
import type { AgentCard } from '@a2a-js/sdk';
import { parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { agentCard } from '../documents/agent-card.js';
import type { Route } from '../../http/types.js';
import type { RateLimiter } from '../../http/rate-limiter.js';
import { a2aRoutes } from './http-endpoint.js';
import { a2aRestRoutes } from './rest-endpoint.js';
import { GuardrailRequestHandler } from './request-handler.js';
import type { A2ASkillDeps } from './skills.js';

/**
 * `baseUrl` is read on first use: with PORT=0 the port is known only once the edge listens. The
 * handler's card is the published one read as the SDK reads it, with the interfaces a 1.0 client
 * reads (the SDK's 0.3 reading builds them from `url` and `additionalInterfaces` alone), so both
 * say the same and the HTTP+JSON binding checks a request's version against them.
 */
export function a2aChannel(skills: A2ASkillDeps, limiter: RateLimiter, baseUrl: () => string, now: () => number): Route[] {
  let card: AgentCard | undefined;
  const published = () => {
    if (card) return card;
    const json = agentCard(baseUrl());
    return (card = { ...parseLegacyAgentCard(json), supportedInterfaces: json.supportedInterfaces });
  };
  const handler = new GuardrailRequestHandler(skills, published, now);
  return [...a2aRoutes({ handler, limiter }), ...a2aRestRoutes({ handler, limiter })];
}
