import { describe, expect, it } from 'vitest';
import { MAX_PATTERN_LENGTH, patternProblem } from './regexSafety.js';

describe('patternProblem', () => {
  it.each([
    ['^[a-z]+$'],
    ['^(ab|cd)*$'],
    ['^(a|b)*$'],
    ['^[a-z]+@[a-z]+\\.com$'],
    ['^#[0-9a-fA-F]{6}$'],
    ['^[a-z]+(-[a-z]+)*$'],
    ['(\\w|\\d)*'],
    ['^a+b+a+$'],
    ['^[^@]+@[^@]+$'],
    ['^(?<year>\\d{4})-\\d{2}$'],
    ['^(?=.*\\d)[a-z0-9]{8,64}$'],
    ['^\\p{L}+$'],
    ['^\\u{1F600}+$'],
    ['abc'],
  ])('accepts %s', (pattern) => {
    expect(patternProblem(pattern)).toBeNull();
  });

  it.each([
    ['^(a|a)*$', /exponential/],
    ['^(a|aa)+$', /exponential/],
    ['^(a+)+$', /exponential/],
    ['^(.a|a.){2,}$', /exponential/],
    ['^\\d+\\d+x$', /polynomial/],
    ['^a*b*a*$', /polynomial/],
    ['^.*a.*b$', /polynomial/],
    ['^\\S+@\\S+\\.\\S+$', /polynomial/],
    ['\\d+x', /polynomial/],
    ['(a|b', /not a valid regular expression/],
    ['a'.repeat(MAX_PATTERN_LENGTH + 1), /longer than/],
  ])('refuses %s', (pattern, reason) => {
    expect(patternProblem(pattern)).toMatch(reason);
  });
});
