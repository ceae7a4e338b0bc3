declare module 'geoip-country' {
  interface Country {
    country: string;
    name: string;
  }
  const geoip: { lookup(ip: string): Country | null };
  export default geoip;
}
