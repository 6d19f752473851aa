// The body of every catalogued REST error as a schema: `{detail, code}`, with `error` where no result was produced.
import { Type } from '@sinclair/typebox';
import { ERRORS, type ErrorCode as Code } from '../catalogue/errors.js';

/** Every code of the catalogue; an `enum` rather than a union of literals, so readers of the schema see a plain list. */
export const ErrorCode = Type.Unsafe<Code>({ type: 'string', enum: Object.keys(ERRORS) });

export const ErrorBody = Type.Object({
  detail: Type.String({ description: 'What did not happen and why, in words' }),
  code: ErrorCode,
  error: Type.Optional(
    Type.String({
      description: 'Present when a result was not produced (a safety report, a simulation, a paid verdict): what failed. Never assume safe.',
    }),
  ),
});
