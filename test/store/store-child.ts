/**
 * A separate process working on a store, for the contract suite's multi-process tests. Its one
 * argument is JSON: `{ store: { home, databaseUrl? }, action, runId, … }`. Once its store is
 * open it prints `ready` and waits for a line on its standard input, so that all children start
 * together; then it does its action and prints one JSON line with the outcome.
 */

import { openStore } from "../../src/store/open-store.ts";

interface ChildOrder {
  store: { home: string; databaseUrl?: string };
  action: "append" | "claim" | "cancel" | "start";
  runId: string;
  /** append: how many events, tagged `tag`, with a pause of `pauseMs` after each. */
  count?: number;
  pauseMs?: number;
  tag?: string;
  /** start: the options of the run created. */
  options?: Record<string, unknown>;
}

const order = JSON.parse(process.argv[2]!) as ChildOrder;
const store = openStore(order.store);
await store.ready();
process.stdout.write("ready\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
process.stdin.pause();
const ts = () => new Date().toISOString();
let outcome: unknown;
if (order.action === "append") {
  const seqs: number[] = [];
  for (let i = 0; i < (order.count ?? 1); i++) {
    const stored = await store.events.append(
      order.runId,
      { type: "phase", phase: `${order.tag}:${i}` },
      ts(),
    );
    seqs.push(stored.seq);
    if (order.pauseMs) await new Promise((resolve) => setTimeout(resolve, order.pauseMs));
  }
  outcome = { seqs };
} else if (order.action === "claim") {
  const owner = { host: "child", pid: process.pid, startedAt: ts() };
  const claimed = await store.runs.claim(order.runId, owner, ts());
  outcome = { claimed: claimed !== null, pid: process.pid };
} else if (order.action === "start") {
  // A worker starting a queued run: a running create of its id.
  const owner = { host: "child", pid: process.pid, startedAt: ts() };
  try {
    const run = {
      id: order.runId,
      query: "q",
      strategy: "graph",
      options: order.options ?? {},
      createdAt: ts(),
      owner,
    };
    await store.runs.create(run);
    outcome = { started: true, pid: process.pid };
  } catch (error) {
    outcome = { started: false, code: (error as { code?: string }).code, pid: process.pid };
  }
} else {
  outcome = { requested: await store.runs.requestCancel(order.runId, `cancelled by ${process.pid}`, ts()) };
}
await store.close();
process.stdout.write(`${JSON.stringify(outcome)}\n`);
