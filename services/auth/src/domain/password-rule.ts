/**
 * The one password length rule: 8 to 72 characters, counted as code points (72 is as much as
 * argon2 is given to hash). Registration's and the account form's `password` fields check it;
 * a login whose password no longer meets it answers `required_actions: ["update_password"]`.
 */
export const PASSWORD_LENGTH = { min: 8, max: 72 } as const;

export function passwordLengthOk(password: string): boolean {
  const length = [...password].length;
  return length >= PASSWORD_LENGTH.min && length <= PASSWORD_LENGTH.max;
}

/** The form error a password of the wrong length gets, as the platform words it. */
export const PASSWORD_BAD_LENGTH = {
  code: 'BASE_TYPE_BAD_LENGTH',
  message: `Must be between ${PASSWORD_LENGTH.min} and ${PASSWORD_LENGTH.max} in length.`,
};
