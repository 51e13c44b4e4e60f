/**
 * The policy versions a rollout service has been asked for, and which of them are stale. A
 * trainer names the version of the weights its policy server holds with every request
 * (`policyVersion`, an integer or a string) and only moves forward; rollouts of a version
 * older than the latest one requested are off-policy.
 *
 * The order: versions count in the order they were first requested, the last one being the
 * latest. A version is stale when it is not the latest and either was requested before (a
 * trainer went back to it) or is an integer smaller than the largest integer requested so far
 * (3 after 5, even if 3 was never asked for). A stale request does not change the latest. `5`
 * and `"5"` are different versions; a trainer uses one kind.
 *
 * The state is kept in the store, so a restarted service still knows the latest version.
 */

import { z } from "zod";
import type { Store } from "../../store/types.ts";

/** A policy version. */
export const policyVersionSchema = z.union([
  z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  z.string().min(1).max(200),
]);
/** A policy version. */
export type PolicyVersion = z.infer<typeof policyVersionSchema>;

/** Versions remembered (the oldest are forgotten beyond this; they stay stale through `maxInt`). */
const KEPT = 10_000;
const NAMESPACE = "rollout-service";
const KEY = "policy-versions";

const stateSchema = z.object({
  seen: z.array(z.string()),
  maxInt: z.number().nullable(),
});

const canonical = (v: PolicyVersion) => (typeof v === "number" ? `n:${v}` : `s:${v}`);
const decode = (c: string): PolicyVersion => (c.startsWith("n:") ? Number(c.slice(2)) : c.slice(2));

/** What asking for a version found. */
export interface VersionRequest {
  /** True when the version is older than the latest requested before. */
  stale: boolean;
  /** The latest version after the request. */
  latest: PolicyVersion;
  /** True when the request made this version the latest (it was new). */
  advanced: boolean;
}

/** The versions of one service. */
export interface PolicyVersions {
  /** The latest version requested, or null before the first request. */
  latest(): PolicyVersion | null;
  /** True when `version` is older than the latest requested (see the module comment). */
  isStale(version: PolicyVersion): boolean;
  /** What requesting `version` would find, without recording it. */
  peek(version: PolicyVersion): VersionRequest;
  /** Records a request for `version` (kept in the store) and says what it found. */
  request(version: PolicyVersion): Promise<VersionRequest>;
}

/** The versions of a service over `store`, read from it first. */
export async function loadPolicyVersions(store: Store, now: () => number): Promise<PolicyVersions> {
  const kept = stateSchema.safeParse(await store.cache.get(NAMESPACE, KEY, now()));
  const seen: string[] = kept.success ? kept.data.seen : [];
  let maxInt: number | null = kept.success ? kept.data.maxInt : null;
  const order = new Set(seen);

  const latest = () => (seen.length ? decode(seen[seen.length - 1]!) : null);
  const isStale = (version: PolicyVersion) => {
    const c = canonical(version);
    if (seen.length === 0 || c === seen[seen.length - 1]) return false;
    return order.has(c) || (typeof version === "number" && maxInt !== null && version < maxInt);
  };
  const peek = (version: PolicyVersion): VersionRequest => {
    const stale = isStale(version);
    const advanced = !stale && !(seen.length && canonical(version) === seen[seen.length - 1]);
    return { stale, advanced, latest: advanced || seen.length === 0 ? version : latest()! };
  };

  return {
    latest,
    isStale,
    peek,
    async request(version) {
      const found = peek(version);
      if (!found.advanced) return found;
      const c = canonical(version);
      seen.push(c);
      order.add(c);
      if (typeof version === "number") maxInt = Math.max(maxInt ?? version, version);
      while (seen.length > KEPT) order.delete(seen.shift()!);
      await store.cache.set(NAMESPACE, KEY, { seen, maxInt }, { nowMs: now() });
      return found;
    },
  };
}
