import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from './json-depth.js';

const bytes = (text: string) => Buffer.from(text);

describe('nestsDeeperThan', () => {
  it('when objects and arrays nest past the limit, then it says so, whichever brackets they are', () => {
    expect(nestsDeeperThan(bytes('[[[]]]'), 2)).toBe(true);
    expect(nestsDeeperThan(bytes('{"a":{"b":[1]}}'), 2)).toBe(true);
    expect(nestsDeeperThan(bytes('['.repeat(5000)), 32)).toBe(true);
  });

  it('when the nesting is within the limit, then it does not, siblings included', () => {
    expect(nestsDeeperThan(bytes('[[[]]]'), 3)).toBe(false);
    expect(nestsDeeperThan(bytes('[[1],[2],{"a":[3]},[[4]]]'), 3)).toBe(false);
    expect(nestsDeeperThan(bytes('"plain"'), 0)).toBe(false);
  });

  it('when brackets are inside strings, escaped quotes and backslashes included, then they do not count', () => {
    expect(nestsDeeperThan(bytes(JSON.stringify({ a: '[[[[{{{{' })), 1)).toBe(false);
    expect(nestsDeeperThan(bytes(JSON.stringify({ a: 'x\\"[[[[', b: '\\' })), 1)).toBe(false);
    expect(nestsDeeperThan(bytes(JSON.stringify({ a: '\\', b: [[1]] })), 2)).toBe(true);
  });
});
