import { describe, expect, it } from 'vitest';
import { ApiError } from '@kith/platform';
import { badRowLines, listed, parseTargetFile } from './target-users.file.js';

describe('target users files', () => {
  it('when the file has the header, then its rows come back in order, quotes, CRLFs and a BOM dropped', () => {
    expect(parseTargetFile('\uFEFFuser_id\r\n"123456789012345678"\r\n223456789012345678\r\n')).toEqual([
      '123456789012345678',
      '223456789012345678',
    ]);
    expect(parseTargetFile('USER_ID\n')).toEqual([]);
  });

  it('when the header is missing or the file holds NUL, then 50035 on target_users_file', () => {
    for (const text of ['123\n456\n', '', 'id\n1\n', 'user_id\n1\u0000\n']) {
      const err = (() => {
        try {
          parseTargetFile(text);
        } catch (e) {
          return e;
        }
      })() as ApiError;
      expect(err.body.code).toBe(50035);
      expect(Object.keys(err.body.errors ?? {})).toEqual(['target_users_file']);
    }
  });

  it('when rows are checked, then the lines of non-ids are named, a few at most', () => {
    expect(badRowLines(['123456789012345678', 'x', '', '1-2'])).toEqual([3, 4, 5]);
    expect(listed('Bad', [1, 2, 3], 2)).toBe('Bad: 1, 2, … (3 in all)');
  });
});
