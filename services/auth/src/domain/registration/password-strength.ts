import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as en from '@zxcvbn-ts/language-en';

/**
 * Our policy: 8–72 characters (../password-rule.ts; the length itself is a form error) and a zxcvbn score of at least 2,
 * "somewhat guessable" (about 10^8 guesses): unthrottled offline attacks on an argon2id hash stay slow.
 */
export const MIN_PASSWORD_SCORE = 2;

let factory: ZxcvbnFactory | undefined;

/** The dictionaries are large; they load on first use and once per process. */
function zxcvbn(): ZxcvbnFactory {
  factory ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...en.dictionary },
    graphs: common.adjacencyGraphs,
    translations: en.translations,
  });
  return factory;
}

export function passwordStrength(password: string, userInputs: string[] = []): { valid: boolean; password_strength: number } {
  const score = zxcvbn().check(password, userInputs).score;
  return { valid: score >= MIN_PASSWORD_SCORE, password_strength: score };
}
