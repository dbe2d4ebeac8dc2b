/**
 * Turns zod issues into the spec's validation details: one line per problem, naming the
 * field and, for type mismatches, the expected and received types. A line quotes caller
 * text only cut short (`shortened`: an unrecognised field's name), and names at most
 * MAX_NAMED_KEYS unrecognised fields, so a body of 256 KiB does not come back in its error.
 * A value that fits no branch of a union (a string or a list of strings) is described by
 * the one branch its type fits, when there is one: "court: Too big: expected array to have
 * <=50 items" rather than "Invalid input".
 */
import type { z } from 'zod';
import { shortened } from '../domain/echo.ts';
import { ApiError } from './api-error.ts';

/** Unrecognised fields named in one detail line; the rest are counted. */
const MAX_NAMED_KEYS = 10;

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

function unrecognised(keys: readonly string[]): string {
  const named = keys.slice(0, MAX_NAMED_KEYS).map(shortened).join(', ');
  return keys.length > MAX_NAMED_KEYS ? `${named} and ${keys.length - MAX_NAMED_KEYS} more` : named;
}

/** The issues of the one union branch the value's type fits, if exactly one does. */
function fittingBranch(issue: z.core.$ZodIssueInvalidUnion): z.core.$ZodIssue[] | undefined {
  const fitting = issue.errors.filter((branch) => !branch.some((i) => i.code === 'invalid_type' && i.path.length === 0));
  return fitting.length === 1 ? fitting[0] : undefined;
}

export function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)';
  if (issue.code === 'invalid_type') {
    const received = valueAt(input, issue.path);
    return received === undefined
      ? `${field}: required (expected ${issue.expected})`
      : `${field}: expected ${issue.expected}, received ${typeName(received)}`;
  }
  if (issue.code === 'unrecognized_keys') return `${field}: unrecognised field(s) ${unrecognised(issue.keys)}`;
  if (issue.code === 'invalid_union') {
    const inner = fittingBranch(issue)?.[0];
    if (inner !== undefined) return describeIssue({ ...inner, path: [...issue.path, ...inner.path] }, input);
  }
  return `${field}: ${issue.message}`;
}

export function validationError(error: z.ZodError, input: unknown): ApiError {
  return validationFailed(error.issues.map((issue) => describeIssue(issue, input)));
}

/** VALIDATION_ERROR for problems found past the schema (a filter that does not resolve, say), one detail each. */
export function validationFailed(details: readonly string[]): ApiError {
  return new ApiError('VALIDATION_ERROR', { message: `Validation failed: ${details.join('; ')}`, details });
}
