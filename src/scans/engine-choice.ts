/**
 * A scan's engine at creation and update: the deployment must have an engine for the scan type
 * (else the registry's reason, in a 422 on `scan_type`), and the scan's `engine_options` must
 * fit that engine's own schema (else a 422 on the option's path, e.g. `engine_options.ports`).
 */
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { EngineRegistry } from '../engines/registry.js';
import type { FieldErrors } from '../shared/errors.js';
import type { ScanType } from '../shared/scan-types.js';

const FIELD = 'engine_options';

function add(errors: FieldErrors, field: string, message: string): void {
  const list = (errors[field] ??= []);
  if (!list.includes(message)) list.push(message);
}

/** The schema's own description of an option, for messages about a value of the wrong shape. */
function describe(schema: TSchema, key: string): string | undefined {
  const property = (schema as { properties?: Record<string, { description?: string }> }).properties?.[key];
  return property?.description;
}

/** The subschema a validation error's `schemaPath` (`#/properties/a/items`) points at. */
function schemaAt(schema: TSchema, pointer: string): unknown {
  const parts = pointer.replace(/^#\/?/, '').split('/').filter((part) => part !== '');
  return parts.reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], schema);
}

/** The values a schema of literals allows (a const, an enum, or a union of those); undefined for any other schema. */
function literalsOf(schema: unknown): unknown[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as { const?: unknown; enum?: unknown; anyOf?: unknown };
  if ('const' in s) return [s.const];
  if (Array.isArray(s.enum)) return s.enum;
  if (!Array.isArray(s.anyOf)) return undefined;
  const parts = s.anyOf.map(literalsOf);
  return parts.every((part) => part !== undefined) ? parts.flat() : undefined;
}

/** One message per option, the way the rest of the API words them. */
function checkOptions(schema: TSchema, options: Record<string, unknown>, engineName: string, errors: FieldErrors): void {
  const byOption = new Map<string, { keyword: string; params: Record<string, unknown>; schemaPath: string; instancePath: string }[]>();
  for (const error of Value.Errors(schema, options)) {
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'additionalProperties') {
      for (const name of (params.additionalProperties as string[] | undefined) ?? []) add(errors, `${FIELD}.${name}`, `The ${engineName} engine has no option ${name}.`);
      continue;
    }
    const key = error.instancePath.split('/')[1];
    if (!key || error.keyword === 'boolean') continue;
    byOption.set(key, [...(byOption.get(key) ?? []), { keyword: error.keyword, params, schemaPath: error.schemaPath, instancePath: error.instancePath }]);
  }
  for (const [key, found] of byOption) {
    const field = `${FIELD}.${key}`;
    const first = found.find((e) => e.keyword === 'anyOf') ?? found[0]!;
    const limit = String(first.params.limit);
    switch (first.keyword) {
      case 'type':
        add(errors, field, `The ${field} field must be ${first.params.type === 'integer' ? 'an integer' : `a ${String(first.params.type)}`}.`);
        break;
      case 'minimum':
        add(errors, field, `The ${field} field must be at least ${limit}.`);
        break;
      case 'maximum':
        add(errors, field, `The ${field} field must not be greater than ${limit} (this deployment's limit).`);
        break;
      case 'minItems':
        add(errors, field, `The ${field} field must have at least ${limit} item${limit === '1' ? '' : 's'}.`);
        break;
      case 'maxItems':
        add(errors, field, `The ${field} field must not have more than ${limit} items.`);
        break;
      default: {
        // A union of literals (or an enum, or a const) says its values; an item's error names the items.
        const allowed = literalsOf(schemaAt(schema, first.schemaPath));
        if (allowed) {
          const subject = first.instancePath === `/${key}` ? `The ${field} field` : `The ${field} field's items`;
          add(errors, field, `${subject} must be one of: ${allowed.map((value) => String(value)).join(', ')}.`);
          break;
        }
        const description = describe(schema, key);
        add(errors, field, description ? `The ${field} field must be ${description}.` : `The ${field} field is invalid.`);
      }
    }
  }
}

/**
 * Checks the scan type and options against the deployment's engines, adding errors. `managed`:
 * the service's workers run the scan (an Unmanaged scan is run by the local agent, so its type
 * needs no engine here).
 */
export function checkEngineChoice(
  engines: EngineRegistry,
  scanType: ScanType,
  options: Record<string, unknown> | undefined,
  managed: boolean,
  errors: FieldErrors,
): void {
  const choice = engines.forScanType(scanType);
  if (!choice.available) {
    if (managed) add(errors, 'scan_type', choice.reason);
    else if (options && Object.keys(options).length > 0) add(errors, FIELD, `This deployment has no engine for ${scanType} scans to check engine options against.`);
    return;
  }
  if (options === undefined) return;
  const schema = choice.engine.optionsSchema;
  if (!schema) {
    if (Object.keys(options).length > 0) add(errors, FIELD, `The ${choice.engine.name} engine, which runs ${scanType} scans here, takes no options.`);
    return;
  }
  checkOptions(schema, options, choice.engine.name, errors);
}

/** The refusal of a rerun (or any new run) of a scan type no engine serves here; undefined when one does. */
export function unavailableReason(engines: EngineRegistry, scanType: ScanType): string | undefined {
  const choice = engines.forScanType(scanType);
  return choice.available ? undefined : choice.reason;
}
