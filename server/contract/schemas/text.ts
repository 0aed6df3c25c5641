/**
 * Text fields that reach storage or a gateway. PostgreSQL refuses NUL in text
 * and JSON, a `varchar(n)` column counts characters (code points, not UTF-16
 * units), and gateways choke on control characters in names and references.
 * So every such field is checked here, before anything is stored or sent:
 * - no control character (C0 U+0000–U+001F, DEL, C1 U+0080–U+009F, which
 *   terminals read as escape sequences), except line breaks and tabs in free
 *   text that may legitimately span lines;
 * - well-formed Unicode (no lone surrogate, which storage would silently mangle);
 * - at most `max` code points, the unit the database and JSON Schema count.
 */
import { z } from 'zod';
import { TEXT_LIMITS } from '../limits';

/** Control characters refused in one-line text, and in text that may span lines (which keeps tab, line feed, carriage return), as regular-expression classes. */
const SINGLE_LINE_CONTROLS = '\\x00-\\x1f\\x7f-\\x9f';
const MULTI_LINE_CONTROLS = '\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f';
const SINGLE_LINE_FORBIDDEN = new RegExp(`[${SINGLE_LINE_CONTROLS}]`);
const MULTI_LINE_FORBIDDEN = new RegExp(`[${MULTI_LINE_CONTROLS}]`);

/**
 * The same rule as a JSON Schema `pattern` (ECMA-262, read the same with or
 * without the `u` flag), so the OpenAPI document refuses what the service does.
 */
export const noControlCharacters = (options: { multiline?: boolean } = {}): string => `^[^${options.multiline ? MULTI_LINE_CONTROLS : SINGLE_LINE_CONTROLS}]*$`;
/** A character of one-line text that is not an ASCII digit: what may surround the digits of a document or phone number, in a pattern. */
export const NON_DIGIT_TEXT = `[^${SINGLE_LINE_CONTROLS}0-9]`;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Length in Unicode code points (what `varchar(n)` and JSON Schema `maxLength` count). */
export const codePoints = (value: string): number => {
  let count = 0;
  for (const _ of value) count++;
  return count;
};

/** Why a string cannot be stored or sent as it is, or null when it can. */
export function textProblem(value: string, options: { max?: number; multiline?: boolean } = {}): string | null {
  if ((options.multiline ? MULTI_LINE_FORBIDDEN : SINGLE_LINE_FORBIDDEN).test(value)) {
    return value.includes('\u0000') ? 'must not contain NUL characters' : 'must not contain control characters';
  }
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text (no lone surrogates)';
  if (options.max !== undefined && value.length > options.max && codePoints(value) > options.max) {
    return `must be at most ${options.max} characters`;
  }
  return null;
}

/**
 * A string that storage and gateways accept: `max` code points, no control
 * characters (line breaks and tabs allowed when `multiline`). `min` counts
 * code points too.
 */
export function text(options: { max: number; min?: number; multiline?: boolean }) {
  const { max, min } = options;
  return z
    .string()
    .superRefine((value, ctx) => {
      if (min !== undefined && codePoints(value) < min) {
        ctx.addIssue({ code: 'custom', message: min === 1 ? 'must not be empty' : `must be at least ${min} characters` });
        return;
      }
      const problem = textProblem(value, options);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ maxLength: max, ...(min !== undefined ? { minLength: min } : {}), pattern: noControlCharacters(options) });
}

/** The id of one of the service's records (`org_…`, `env_…`, `gwa_…`), as the operator API receives it. */
export const RecordId = text({ min: 1, max: TEXT_LIMITS.id });
/** A name shown to people (organizations, projects, API keys). */
export const Name = text({ min: 1, max: TEXT_LIMITS.name });
/** A free note that may span lines. */
export const Description = text({ max: TEXT_LIMITS.description, multiline: true });
