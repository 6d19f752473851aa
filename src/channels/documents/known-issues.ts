// /.well-known/known-issues.json: the repository's docs/known-issues.json, checked once at start.
import { Type } from '@sinclair/typebox';
import { compileValidator } from '../../schemas/validator.js';

/** Three folders up from the compiled module (dist/src/channels/documents/) is the repository. */
export const KNOWN_ISSUES_FILE = new URL('../../../../docs/known-issues.json', import.meta.url);

const Text = Type.String({ minLength: 1 });

const KnownIssue = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }),
    title: Text,
    status: Type.Union([Type.Literal('open'), Type.Literal('mitigated'), Type.Literal('fixed')]),
    /** Paths as routes name them; `*` for every path. */
    affected_paths: Type.Array(Text, { minItems: 1 }),
    description: Text,
    workaround: Text,
    /** What would resolve it, when known. */
    fix: Type.Optional(Text),
  },
  { additionalProperties: false },
);

const KnownIssues = Type.Object({ issues: Type.Array(KnownIssue) }, { additionalProperties: false });

const validate = compileValidator(KnownIssues, 'body');

/** The parsed list; a file that is not valid JSON or misses a field stops the start, naming the field. */
export function knownIssues(text: string, source: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not JSON: ${(error as Error).message}`);
  }
  const checked = validate(parsed);
  if (!checked.ok) {
    const problems = checked.detail.map((issue) => `${issue.loc.slice(1).join('.') || '(top)'}: ${issue.msg}`);
    throw new Error(`${source}: ${problems.join('; ')}`);
  }
  const ids = checked.value.issues.map((issue) => issue.id);
  const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
  if (repeated) throw new Error(`${source}: issue id ${repeated} is listed twice`);
  return checked.value;
}
