/**
 * The policy endpoint's configuration: every role is the policy's, its key is the request's (a
 * `DOSSIER_POLICY_` variable, or literal), and without one the requests carry `EMPTY` — never
 * the service's own model key; a worker finds a rollout's policy by its run id in the store.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROLES } from "../../llm/model-spec.ts";
import { createDossier, type Dossier } from "../../runtime/dossier.ts";
import { NO_POLICY_KEY, policyKey, savePolicyRecord } from "./policy.ts";
import { policyDossiers } from "./policy-dossiers.ts";
import { loadPolicyVersions } from "./policy-versions.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function service(): Dossier {
  const home = mkdtempSync(join(tmpdir(), "dossier-policy-"));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const dossier = createDossier({
    env: { DOSSIER_API_KEY: "sk-service", DOSSIER_MODEL_WRITER: "openai:gpt-4o-mini" },
    cwd: home,
    config: { home, model: "openai-compatible:service-model", baseUrl: "http://127.0.0.1:9/v1" },
  });
  cleanups.push(() => dossier.close());
  return dossier;
}

describe("the policy's Dossier", () => {
  it("serves every role by the policy with the policy's key, never the service's", async () => {
    const base = service();
    const policies = policyDossiers({ base, env: { DOSSIER_POLICY_KEY: "sk-policy" } });
    cleanups.push(() => policies.close());
    const keyed = policies.get({
      baseUrl: "http://gpu:8000/v1",
      model: "ckpt",
      apiKeyEnv: "DOSSIER_POLICY_KEY",
    });
    for (const role of ROLES) expect(keyed.models.specFor(role)).toBe("openai-compatible:ckpt");
    expect(keyed.config).toMatchObject({ baseUrl: "http://gpu:8000/v1", apiKey: "sk-policy" });
    expect(keyed.store.location).toBe(base.store.location);
    const keyless = policies.get({ baseUrl: "http://gpu:8000/v1", model: "ckpt" });
    expect(keyless.config.apiKey).toBe(NO_POLICY_KEY);
    expect(policies.get({ baseUrl: "http://gpu:8000/v1", model: "ckpt" })).toBe(keyless);
    expect(
      policies.get({ baseUrl: "http://gpu:8000/v1", model: "ckpt", apiKey: "sk-literal" }).config.apiKey,
    ).toBe("sk-literal");
  });

  it("reads only DOSSIER_POLICY_ variables, and names one that is not set", () => {
    expect(() => policyKey({ apiKeyEnv: "DOSSIER_API_KEY" }, { DOSSIER_API_KEY: "sk-service" })).toThrow(
      /DOSSIER_POLICY_/,
    );
    expect(() => policyKey({ apiKeyEnv: "DOSSIER_POLICY_KEY" }, {})).toThrow(
      expect.objectContaining({ code: "PROVIDER_NOT_CONFIGURED" }),
    );
  });

  it("gives a worker the policy of a rollout's run, and its own Dossier for any other run", async () => {
    const base = service();
    const policies = policyDossiers({ base, env: { DOSSIER_POLICY_K: "sk-worker" } });
    cleanups.push(() => policies.close());
    await savePolicyRecord(
      base.store,
      "run-1",
      {
        baseUrl: "http://gpu:8000/v1",
        model: "ckpt",
        apiKeyEnv: "DOSSIER_POLICY_K",
        batchId: "b",
        policyVersion: 3,
      },
      Date.now(),
    );
    const runner = await policies.forRun("run-1");
    expect(runner.models.specFor("searcher")).toBe("openai-compatible:ckpt");
    expect(runner.config.apiKey).toBe("sk-worker");
    expect(await policies.forRun("run-2")).toBe(base);
  });
});

describe("policy versions", () => {
  it("count in the order first requested; integers below the largest are stale; kept in the store", async () => {
    const base = service();
    const versions = await loadPolicyVersions(base.store, Date.now);
    expect(await versions.request(5)).toEqual({ stale: false, advanced: true, latest: 5 });
    expect(await versions.request(5)).toEqual({ stale: false, advanced: false, latest: 5 });
    expect(versions.peek(3)).toEqual({ stale: true, advanced: false, latest: 5 });
    expect(await versions.request(7)).toMatchObject({ stale: false, advanced: true });
    expect(versions.isStale(5)).toBe(true);
    expect(await versions.request("ckpt-a")).toMatchObject({ stale: false, latest: "ckpt-a" });
    expect(await versions.request(7)).toMatchObject({ stale: true, latest: "ckpt-a" });
    expect(versions.isStale(6)).toBe(true);
    const again = await loadPolicyVersions(base.store, Date.now);
    expect(again.latest()).toBe("ckpt-a");
    expect(again.isStale(7)).toBe(true);
    expect(again.isStale("ckpt-a")).toBe(false);
  });
});
