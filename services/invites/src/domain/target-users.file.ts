import { ApiError, isSnowflake } from '@kith/platform';

/** A file's rows at most (a 100,000-user file is the largest the platform's clients send). */
export const MAX_TARGET_ROWS = 200_000;

const fileError = (code: string, message: string) => ApiError.form({ target_users_file: { code, message } });

/**
 * A target users file: CSV with the header `user_id` and one id a row. Only the shape is checked
 * here (the header, the row count); each row is checked by the job, which reports bad rows.
 */
export function parseTargetFile(text: string): string[] {
  // Text columns cannot hold NUL, and no CSV of ids has one.
  if (text.includes('\u0000')) throw fileError('TARGET_USERS_FILE_INVALID', 'The file must be a CSV with the header user_id.');
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = unquote(lines[0] ?? '').toLowerCase();
  if (header !== 'user_id') throw fileError('TARGET_USERS_FILE_INVALID', 'The file must be a CSV with the header user_id.');
  const rows: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    const row = unquote(lines[i]!);
    // Blank lines (a trailing newline, say) are not rows; a row keeps its place for error messages.
    if (row !== '' || i < lines.length - 1) rows.push(row);
  }
  while (rows.length > 0 && rows[rows.length - 1] === '') rows.pop();
  if (rows.length > MAX_TARGET_ROWS) throw fileError('TARGET_USERS_FILE_TOO_MANY', `The file may list at most ${MAX_TARGET_ROWS} users.`);
  return rows;
}

function unquote(value: string): string {
  const trimmed = value.trim();
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1).trim() : trimmed;
}

/** The 1-based file lines (the header is line 1) of rows that are not a user id. */
export function badRowLines(rows: readonly string[]): number[] {
  const bad: number[] = [];
  rows.forEach((row, i) => {
    if (!isSnowflake(row)) bad.push(i + 2);
  });
  return bad;
}

/** What a failed job says, listing a few of the offenders and how many there were. */
export function listed(what: string, items: readonly (string | number)[], shown = 10): string {
  const head = items.slice(0, shown).join(', ');
  return `${what}: ${head}${items.length > shown ? `, … (${items.length} in all)` : ''}`;
}
