/**
 * Cache keys of tool calls: the tool, the provider and its arguments in a normal form (keys
 * sorted, strings trimmed with runs of whitespace collapsed), hashed.
 */

import { createHash } from "node:crypto";

/** Arguments in a normal form, so equivalent calls share a key. */
export function normalizeArgs(value: unknown): unknown {
  if (typeof value === "string") return value.trim().replace(/\s+/g, " ");
  if (Array.isArray(value)) return value.map(normalizeArgs);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = normalizeArgs(v);
    }
    return out;
  }
  return value;
}

/** The cache key of a call. */
export function toolCacheKey(tool: string, provider: string, args: unknown): string {
  const digest = createHash("sha256")
    .update(JSON.stringify(normalizeArgs(args)))
    .digest("hex")
    .slice(0, 32);
  return `${tool}:${provider}:${digest}`;
}
