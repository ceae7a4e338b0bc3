import { describe, expect, it } from 'vitest';
import { approximateLocation, clientInfoFrom } from './client-info.js';

const FIREFOX_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const CHROME_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const props = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

describe('clientInfoFrom', () => {
  it('when X-Super-Properties names os and browser, then those are shown, not the User-Agent', () => {
    const info = clientInfoFrom({ superProperties: props({ os: 'Linux', browser: 'Discord Client' }), userAgent: CHROME_ON_WINDOWS }, '');
    expect(info).toEqual({ os: 'Linux', platform: 'Discord Client', location: null });
  });

  it('when X-Super-Properties lacks the browser, then the platform comes from the User-Agent', () => {
    const info = clientInfoFrom({ superProperties: props({ os: 'Mac OS X' }), userAgent: FIREFOX_ON_LINUX }, '');
    expect(info).toEqual({ os: 'Mac OS X', platform: 'Firefox', location: null });
  });

  it('when only a User-Agent is sent, then os and platform are parsed from it', () => {
    expect(clientInfoFrom({ userAgent: FIREFOX_ON_LINUX }, '')).toEqual({ os: 'Linux', platform: 'Firefox', location: null });
    expect(clientInfoFrom({ userAgent: CHROME_ON_WINDOWS }, '')).toEqual({ os: 'Windows', platform: 'Chrome', location: null });
  });

  it('when X-Super-Properties is not base64 JSON, then it is ignored and the User-Agent is used', () => {
    expect(clientInfoFrom({ superProperties: '%%% not base64 %%%', userAgent: FIREFOX_ON_LINUX }, '')).toMatchObject({
      os: 'Linux',
      platform: 'Firefox',
    });
    expect(clientInfoFrom({ superProperties: Buffer.from('null').toString('base64'), userAgent: FIREFOX_ON_LINUX }, '')).toMatchObject({
      os: 'Linux',
      platform: 'Firefox',
    });
  });

  it('when X-Super-Properties fields are not strings, then they are ignored', () => {
    expect(clientInfoFrom({ superProperties: props({ os: 42, browser: { name: 'x' } }) }, '')).toEqual({
      os: null,
      platform: null,
      location: null,
    });
  });

  it('when the client describes itself at length, then each field is cut to 64 characters', () => {
    const info = clientInfoFrom({ superProperties: props({ os: 'o'.repeat(500), browser: 'b'.repeat(500) }) }, '');
    expect(info.os).toHaveLength(64);
    expect(info.platform).toHaveLength(64);
  });

  it('when nothing describes the client, then os and platform are null', () => {
    expect(clientInfoFrom({}, '')).toEqual({ os: null, platform: null, location: null });
  });

  it('when the client IP is public, then the location is its country', () => {
    expect(clientInfoFrom({}, '8.8.8.8').location).toBe('United States');
  });
});

describe('approximateLocation', () => {
  it('when the address is loopback, private or not an address, then there is no location', () => {
    for (const ip of ['127.0.0.1', '::1', '10.1.2.3', '172.16.5.4', '192.168.0.10', 'fe80::1', '', 'not-an-ip', '999.1.1.1']) {
      expect(approximateLocation(ip), ip).toBeNull();
    }
  });

  it('when the address is public, then the location is a country name', () => {
    expect(approximateLocation('8.8.8.8')).toBe('United States');
    expect(approximateLocation('2001:4860:4860::8888')).toBe('United States');
    expect(approximateLocation('81.2.69.142')).toBe('United Kingdom');
  });
});
