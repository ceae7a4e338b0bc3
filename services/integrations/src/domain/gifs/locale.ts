export const DEFAULT_LOCALE = 'en-US';

/** `xx`, `xx-YY`, `xx_YY` or `xx-419`: a language and an optional region. */
const LOCALE = /^([a-z]{2,3})(?:[-_]([a-z]{2}|\d{3}))?$/i;

/**
 * The locale a request stands for, as `xx-YY` (or `xx`): anything that is not a language tag is the
 * platform's default, en-US, as the platform answers rather than refusing.
 */
export function normalizeLocale(value: string | undefined): string {
  const match = value === undefined ? null : LOCALE.exec(value.trim());
  if (!match) return DEFAULT_LOCALE;
  const language = match[1]!.toLowerCase();
  return match[2] ? `${language}-${match[2].toUpperCase()}` : language;
}
