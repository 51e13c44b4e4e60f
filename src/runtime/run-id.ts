/**
 * Run ids: sortable by start time and unique: `20261122-143005-k3j9x2`.
 */

import { randomBytes } from "node:crypto";

/** A new run id for a start time. */
export function createRunId(nowMs: number, random: () => Buffer = () => randomBytes(4)): string {
  const stamp = new Date(nowMs).toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const suffix = random().readUInt32BE(0).toString(36).padStart(6, "0").slice(-6);
  return `${stamp}-${suffix}`;
}
