// Holds a live answer to what the OpenAPI document declares for its operation and status, schemas and refs as published.
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The body validates against the JSON schema the document declares for `method path` at `status`. */
export function assertDocumented(document: any, path: string, method: string, status: number, body: unknown): void {
  let response = document.paths[path]?.[method]?.responses?.[String(status)];
  assert.ok(response, `${method.toUpperCase()} ${path} declares no ${status}`);
  if (response.$ref) response = document.components.responses[response.$ref.split('/').at(-1)];
  const schema = response.content?.['application/json']?.schema;
  assert.ok(schema, `${method.toUpperCase()} ${path} ${status} declares no JSON body`);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  // The schema's `#/components/...` refs resolve against the document's components placed at its root.
  const validate = ajv.compile({ ...schema, components: document.components });
  assert.ok(validate(body), `${method.toUpperCase()} ${path} ${status}: ${JSON.stringify(validate.errors)} for ${JSON.stringify(body)}`);
}
