/**
 * The sampling a strategy states, per protocol and role, read from its definition (and the page
 * reader's, a tool every strategy shares): what `dossier strategies` lists and what every call
 * of a run with the default options is sent.
 */

import { z } from "zod";
import type { Role } from "../llm/model-spec.ts";
import type { CallSampling } from "../llm/role-sampling.ts";
import { READER_SAMPLING } from "../tools/crawl/crawl-page.ts";
import type { StrategyDefinition } from "./types.ts";

/** The stated sampling of one protocol (null: the strategy has no protocol option). */
export interface ProtocolSampling {
  protocol: string | null;
  /** Per role the strategy calls; a role absent here is sent the provider's defaults. */
  roles: Partial<Record<Role, CallSampling>>;
}

/** The protocols a definition's options offer (its `protocol` enum), or [null] without one. */
export function protocolsOf(definition: StrategyDefinition<unknown>): (string | null)[] {
  const json = z.toJSONSchema(definition.optionsSchema, { io: "input", unrepresentable: "any" }) as {
    properties?: { protocol?: { enum?: string[] } };
  };
  return json.properties?.protocol?.enum ?? [null];
}

/** The stated sampling of each protocol, with the options' defaults. */
export function samplingTable(definition: StrategyDefinition<unknown>): ProtocolSampling[] {
  return protocolsOf(definition).map((protocol) => {
    const options = definition.optionsSchema.parse(protocol === null ? {} : { protocol });
    const stated = definition.sampling?.(options) ?? {};
    const roles: Partial<Record<Role, CallSampling>> = {};
    for (const role of definition.roles) if (stated[role]) roles[role] = stated[role];
    // The page reader is a tool of every strategy: its own sampling, whatever the table says.
    if (definition.roles.includes("reader")) roles.reader = { ...READER_SAMPLING };
    return { protocol, roles };
  });
}
