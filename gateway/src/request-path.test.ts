import { describe, expect, it } from 'vitest';
import { decodePath } from './request-path.js';

describe('decodePath', () => {
  it('when a client encodes @me or other characters a path may carry, then they are decoded once', () => {
    expect(decodePath('/api/v9/users/%40me')).toBe('/api/v9/users/@me');
    expect(decodePath('/api/v10/guilds/1/members/%40me')).toBe('/api/v10/guilds/1/members/@me');
    expect(decodePath('/api/v9/users/%40Me%2dx%7E%3A')).toBe('/api/v9/users/@Me-x~:');
    expect(decodePath('/api/v9/users/@me')).toBe('/api/v9/users/@me');
  });

  it('when an escape would change the path’s structure or be decoded again, then it stays encoded', () => {
    expect(decodePath('/api/v9/users/%2F%2f')).toBe('/api/v9/users/%2F%2F');
    expect(decodePath('/api/v9/users/%3F%23')).toBe('/api/v9/users/%3F%23');
    // `%2540me` is the text "%40me", not "@me": decoding it twice would make it so.
    expect(decodePath('/api/v9/users/%2540me')).toBe('/api/v9/users/%2540me');
    expect(decodePath('/api/v9/invites/%C3%A9')).toBe('/api/v9/invites/%C3%A9');
    expect(decodePath('/api/v9/users/%00')).toBe('/api/v9/users/%00');
    expect(decodePath('/api/v9/users/%zz')).toBe('/api/v9/users/%zz');
  });

  it('when the path has a dot segment, however spelled, then it is no API path', () => {
    for (const path of ['/api/v9/users/@me/../../guilds', '/api/v9/./users', '/api/v9/users/%2e%2E/x', '/api/v9/users/%2E', '/api/v9/x/..'])
      expect(decodePath(path), path).toBeUndefined();
    expect(decodePath('/api/v9/users/...')).toBe('/api/v9/users/...');
    expect(decodePath('/api/v9/gifs/a.b')).toBe('/api/v9/gifs/a.b');
  });
});
