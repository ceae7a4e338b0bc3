/**
 * Stripe's documented test cards (docs.stripe.com/testing), by number, payment method shortcut
 * (`pm_card_…`) and token (`tok_…`), with what each does at Stripe.
 */
export interface TestCard {
  brand: string;
  last4: string;
  country: string;
  /**
   * ok: charges succeed; decline_on_attach[:code]: refused when attached to a customer;
   * decline_on_charge[:code]: attached, then every charge declined; requires_auth: a charge needs
   * the customer's authentication (3D Secure) and, off session, is declined.
   */
  behaviour: 'ok' | 'requires_auth' | `decline_on_attach${string}` | `decline_on_charge${string}`;
}

const CARDS: { number: string; names: string[]; card: TestCard }[] = [
  { number: '4242424242424242', names: ['visa'], card: { brand: 'visa', last4: '4242', country: 'US', behaviour: 'ok' } },
  { number: '4000056655665556', names: ['visa_debit'], card: { brand: 'visa', last4: '5556', country: 'US', behaviour: 'ok' } },
  { number: '5555555555554444', names: ['mastercard'], card: { brand: 'mastercard', last4: '4444', country: 'US', behaviour: 'ok' } },
  { number: '378282246310005', names: ['amex'], card: { brand: 'amex', last4: '0005', country: 'US', behaviour: 'ok' } },
  { number: '4000002500000003', names: ['fr', 'visa_fr'], card: { brand: 'visa', last4: '0003', country: 'FR', behaviour: 'ok' } },
  {
    number: '4000000000000002',
    names: ['chargeDeclined'],
    card: { brand: 'visa', last4: '0002', country: 'US', behaviour: 'decline_on_attach:generic_decline' },
  },
  {
    number: '4000000000009995',
    names: ['chargeDeclinedInsufficientFunds'],
    card: { brand: 'visa', last4: '9995', country: 'US', behaviour: 'decline_on_attach:insufficient_funds' },
  },
  {
    number: '4000000000000069',
    names: ['chargeDeclinedExpiredCard'],
    card: { brand: 'visa', last4: '0069', country: 'US', behaviour: 'decline_on_attach:expired_card' },
  },
  {
    number: '4000000000000341',
    names: ['chargeCustomerFail'],
    card: { brand: 'visa', last4: '0341', country: 'US', behaviour: 'decline_on_charge:generic_decline' },
  },
  {
    number: '4000002760003184',
    names: ['authenticationRequired'],
    card: { brand: 'visa', last4: '3184', country: 'DE', behaviour: 'requires_auth' },
  },
  {
    number: '4000000000003220',
    names: ['threeDSecure2Required'],
    card: { brand: 'visa', last4: '3220', country: 'US', behaviour: 'requires_auth' },
  },
];

/** The test card a number, `pm_card_<name>` or `tok_<name>` stands for. */
export function cardFor(reference: string): TestCard | undefined {
  const digits = reference.replace(/\s/g, '');
  const byNumber = CARDS.find((c) => c.number === digits);
  if (byNumber) return byNumber.card;
  const name = /^(?:pm_card_|tok_)(\w+)$/.exec(reference)?.[1];
  return name ? CARDS.find((c) => c.names.includes(name))?.card : undefined;
}
