// The skill ids the agent card lists and a message names in `metadata.skill`; a file of its own so the card imports no channel code.
export const A2A_SKILLS = Object.freeze({ evaluate: 'evaluate-trade', tokenSafety: 'token-safety', assets: 'asset-registry' } as const);
export type A2ASkill = (typeof A2A_SKILLS)[keyof typeof A2A_SKILLS];
