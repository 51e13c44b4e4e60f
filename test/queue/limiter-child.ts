/**
 * A separate process holding slots of the Redis provider limiter, for the limiter's tests. Its
 * one argument is JSON: `{ url, provider, limits, leaseMs?, renewMs?, mode, … }`.
 * - `work`: takes `tasks` slots, `parallel` at once, holding each `holdMs`; while a slot is held
 *   it counts itself in the Redis counter `active` (the highest count goes to `peak`). Prints
 *   `{ grants: [server ms…] }`.
 * - `hold`: takes `count` slots, prints `held`, and keeps them (renewing) until it is killed.
 * Once its limiter answers it prints `ready` and waits for a line on standard input, so that all
 * children start together.
 */

import { Redis } from "ioredis";
import { openRedisLimiter } from "../../src/queue/redis-limiter.ts";
import type { ProviderLimits } from "../../src/tools/provider-limiter.ts";

interface ChildOrder {
  url: string;
  provider: string;
  limits: ProviderLimits;
  leaseMs?: number;
  renewMs?: number;
  mode: "work" | "hold";
  tasks?: number;
  parallel?: number;
  holdMs?: number;
  count?: number;
  /** Keys of the shared in-flight counter and its peak (work). */
  active?: string;
  peak?: string;
}

const PEAK = `
local v = redis.call('INCR', KEYS[1])
if v > tonumber(redis.call('GET', KEYS[2]) or '0') then redis.call('SET', KEYS[2], v) end
return v
`;

const order = JSON.parse(process.argv[2]!) as ChildOrder;
const limiter = openRedisLimiter({
  url: order.url,
  ...(order.leaseMs ? { leaseMs: order.leaseMs } : {}),
  ...(order.renewMs ? { renewMs: order.renewMs } : {}),
  pollMs: 10,
});
await limiter.ready();
process.stdout.write("ready\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
process.stdin.pause();

if (order.mode === "hold") {
  for (let i = 0; i < (order.count ?? 1); i++) await limiter.acquire(order.provider, order.limits);
  process.stdout.write("held\n");
  await new Promise(() => {});
}

const plain = new URL(order.url);
plain.search = "";
const counter = new Redis(plain.toString());
const grants: number[] = [];
let next = 0;
const worker = async () => {
  while (next < (order.tasks ?? 1)) {
    next++;
    const slot = (await limiter.acquire(order.provider, order.limits)) as { grantedAt: number } & {
      release(): Promise<void>;
    };
    grants.push(slot.grantedAt);
    await counter.eval(PEAK, 2, order.active!, order.peak!);
    await new Promise((resolve) => setTimeout(resolve, order.holdMs ?? 1));
    await counter.decr(order.active!);
    await slot.release();
  }
};
await Promise.all(Array.from({ length: order.parallel ?? 1 }, worker));
await counter.quit();
await limiter.close();
process.stdout.write(`${JSON.stringify({ grants })}\n`);
