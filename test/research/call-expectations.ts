/**
 * Strict call accounting of the scripted research model. A test declares, per role, how many
 * calls it expects — an exact count or a `[min, max]` budget; a role it does not name is
 * expected never to be called. A call beyond a role's maximum (or to an undeclared role) is
 * unexpected the moment it happens; a role called fewer times than its minimum is unused.
 * Without declarations the script is lenient: only calls it cannot recognise are unexpected.
 */

/** Expected calls of one role: exactly `n`, or between `min` and `max` inclusive. */
export type CallExpectation = number | readonly [min: number, max: number];

/** Expected calls per role. */
export type CallExpectations<Role extends string> = Partial<Record<Role, CallExpectation>>;

/** The inclusive bounds of an expectation. */
export function bounds(expectation: CallExpectation | undefined): [number, number] {
  if (expectation === undefined) return [0, 0];
  return typeof expectation === "number" ? [expectation, expectation] : [expectation[0], expectation[1]];
}

/** Text of an expectation for messages: `3` or `[1, 4]`. */
export function showExpectation(expectation: CallExpectation | undefined): string {
  const [min, max] = bounds(expectation);
  return min === max ? String(min) : `[${min}, ${max}]`;
}

/** True when call number `count` (1-based) of `role` exceeds what `expectations` allow. */
export function isBeyond<Role extends string>(
  expectations: CallExpectations<Role> | null,
  role: Role,
  count: number,
): boolean {
  if (!expectations) return false;
  return count > bounds(expectations[role])[1];
}

/** Roles called fewer times than their declared minimum, as messages. */
export function unusedRoles<Role extends string>(
  expectations: CallExpectations<Role> | null,
  counts: Readonly<Record<Role, number>>,
): string[] {
  if (!expectations) return [];
  const problems: string[] = [];
  for (const [role, expectation] of Object.entries(expectations) as [Role, CallExpectation][]) {
    const [min] = bounds(expectation);
    if (counts[role] < min)
      problems.push(`role ${role}: expected ${showExpectation(expectation)} call(s), got ${counts[role]}`);
  }
  return problems;
}
