import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds, JsonTextError, MAX_JSON_DEPTH, parseJsonText } from '../../runtime/http/json.js';
import { nestedArrays, nestedObjects } from './raw-http.js';

/** The depth scan that guards every JSON body: no recursion, strings skipped, exact at the bound. */

describe('jsonDepthExceeds', () => {
  it('counts arrays and objects, exact at the bound', () => {
    expect(jsonDepthExceeds(nestedArrays(3), 3)).toBe(false);
    expect(jsonDepthExceeds(nestedArrays(4), 3)).toBe(true);
    expect(jsonDepthExceeds(`[{"a":[1]},${nestedObjects(2)}]`, 3)).toBe(false);
    expect(jsonDepthExceeds(`[{"a":[{}]}]`, 3)).toBe(true);
    expect(jsonDepthExceeds(nestedArrays(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonDepthExceeds(nestedArrays(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('skips brackets inside strings, escaped quotes included', () => {
    expect(jsonDepthExceeds(JSON.stringify(['[[[[', '{{{{', '\\"[[[[', '"]]]]']), 1)).toBe(false);
    expect(jsonDepthExceeds(JSON.stringify({ '[[[': '\\' }) + '[[', 1)).toBe(true);
    expect(jsonDepthExceeds('["\\\\", [[]]]', 2)).toBe(true);
  });

  it('scans a million levels without recursion', () => {
    expect(jsonDepthExceeds(nestedArrays(1_000_000))).toBe(true);
  });
});

describe('parseJsonText', () => {
  it('parses within the bound, names the problem otherwise', () => {
    expect(parseJsonText('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(() => parseJsonText(nestedObjects(MAX_JSON_DEPTH + 1))).toThrow(new JsonTextError('depth', `nesting is deeper than ${MAX_JSON_DEPTH} levels`));
    expect(() => parseJsonText('{"a":')).toThrow(expect.objectContaining({ name: 'JsonTextError', problem: 'syntax' }));
  });
});
