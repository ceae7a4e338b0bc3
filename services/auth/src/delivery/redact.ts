/** `+15551234589` → `+1******89`: the country code and the last two digits, as the platform shows numbers. */
export function redactPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (digits.length < 5) return '+' + '*'.repeat(digits.length);
  return `+${digits[0]}${'*'.repeat(digits.length - 3)}${digits.slice(-2)}`;
}

/** `alice@example.com` → `a***@example.com`. */
export function redactEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}
