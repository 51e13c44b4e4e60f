/**
 * How a run's owner is compared in a store: one canonical JSON text, whatever order the fields
 * of the owner object were written in.
 */

import type { RunOwner } from "../core/run.ts";

/** The canonical stored form of an owner. */
export function ownerText(owner: RunOwner): string {
  return JSON.stringify({
    host: owner.host,
    pid: owner.pid,
    startedAt: owner.startedAt,
    ...(owner.leaseMs === undefined ? {} : { leaseMs: owner.leaseMs }),
  });
}
