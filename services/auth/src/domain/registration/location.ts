import { isIP } from 'node:net';
import geoip from 'geoip-country';

/**
 * Where registering needs explicit agreement to the terms and privacy policy, and an explicit opt-in
 * to promotional mail: the EU and EEA members (GDPR) and the United Kingdom (UK GDPR).
 */
export const CONSENT_COUNTRIES: ReadonlySet<string> = new Set([
  // The 27 EU members.
  ...'AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE'.split(' '),
  // The EEA members outside the EU, and the United Kingdom.
  ...'IS LI NO GB'.split(' '),
]);

/** Where promotional mail needs an explicit opt-in without the terms needing one (Canada's CASL). */
const OPT_IN_ONLY_COUNTRIES: ReadonlySet<string> = new Set(['CA']);

export interface LocationMetadata {
  country_code: string;
  consent_required: boolean;
  promotional_email_opt_in: { required: boolean; pre_checked: boolean };
}

/**
 * The caller's country from the GeoLite2 table geoip-country ships. An address it does not know
 * (private, loopback, unallocated) has the empty code the docs' string type allows, and no consent
 * requirement: those are development and internal callers, as the edge forwards the public address.
 */
export function locationMetadata(clientIp: string): LocationMetadata {
  const country = isIP(clientIp) === 0 ? '' : (geoip.lookup(clientIp)?.country ?? '');
  const consent = CONSENT_COUNTRIES.has(country);
  const optIn = consent || OPT_IN_ONLY_COUNTRIES.has(country);
  return {
    country_code: country,
    consent_required: consent,
    // Where the opt-in must be explicit, the box starts unchecked; elsewhere it may start checked.
    promotional_email_opt_in: { required: optIn, pre_checked: !optIn },
  };
}
