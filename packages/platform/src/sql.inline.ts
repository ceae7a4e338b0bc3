import type { CompiledQuery } from 'kysely';

/**
 * The statement with each `$n` replaced by its value as an escaped literal (untyped, as a parameter
 * is), so that it can travel in a simple-protocol message with others (a write, its events and
 * COMMIT in one round trip); null when a value is not a plain scalar or holds a NUL byte (which
 * would end the message's text early).
 */
export function inlineParameters(query: CompiledQuery): string | null {
  const literals: string[] = [];
  for (const value of query.parameters) {
    const literal = toLiteral(value);
    if (literal === null) return null;
    literals.push(literal);
  }
  let ok = true;
  const text = query.sql.replace(/\$(\d+)/g, (_, n: string) => {
    const literal = literals[Number(n) - 1];
    if (literal === undefined) ok = false;
    return literal ?? '';
  });
  return ok ? text : null;
}

function toLiteral(value: unknown): string | null {
  if (value === null || value === undefined) return 'NULL';
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') text = String(value);
  else if (value instanceof Date && !Number.isNaN(value.getTime())) text = value.toISOString();
  else return null;
  if (text.includes('\0')) return null;
  // As pg's escapeLiteral: quotes and backslashes doubled, E'' when there is a backslash, so the
  // text reads the same whatever standard_conforming_strings says.
  const escaped = text.replace(/'/g, "''").replace(/\\/g, '\\\\');
  return escaped.includes('\\') ? ` E'${escaped}'` : `'${escaped}'`;
}
