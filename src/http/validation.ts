/**
 * Turns zod issues into the spec's validation details: one line per problem, naming the
 * field and, for type mismatches, the expected and received types.
 */
import type { z } from 'zod';
import { ApiError } from './api-error.ts';

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

export function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)';
  if (issue.code === 'invalid_type') {
    const received = valueAt(input, issue.path);
    return received === undefined
      ? `${field}: required (expected ${issue.expected})`
      : `${field}: expected ${issue.expected}, received ${typeName(received)}`;
  }
  if (issue.code === 'unrecognized_keys') return `${field}: unrecognised field(s) ${issue.keys.join(', ')}`;
  return `${field}: ${issue.message}`;
}

export function validationError(error: z.ZodError, input: unknown): ApiError {
  const details = error.issues.map((issue) => describeIssue(issue, input));
  return new ApiError('VALIDATION_ERROR', { message: `Validation failed: ${details.join('; ')}`, details });
}
