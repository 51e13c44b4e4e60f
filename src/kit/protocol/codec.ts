/**
 * A protocol as a codec: the one place that knows what a strategy's model calls look like on
 * the wire. A codec turns the strategy's state into the model request (instructions, messages,
 * sampling, and the reply's schema for a JSON protocol) and turns a reply into the strategy's
 * typed action or a typed refusal. A strategy has one loop over its actions; its protocols (a
 * JSON-schema codec for any model, a tag codec for a released checkpoint) plug into that loop and
 * implement the same interface. A codec for a new model family is one file and its tests.
 *
 * Every reply a codec refuses — a parse failure or a rule of the protocol broken — is reported
 * to the call recorder on the call that produced it (`formatErrors` of its `llm-end` and
 * `llm-call`), through {@link sampleAction}: the training layer reads one shape for every
 * strategy and protocol, and a re-sample after a refusal is recorded as a repair round of the
 * same step.
 */

import type { ZodType } from "zod";
import type { ChatMessage } from "../../llm/client.ts";
import type { Role } from "../../llm/model-spec.ts";

/** A reply decoded: the strategy's action, or why the reply was refused. */
export type Decoded<A> = { ok: true; action: A } | { ok: false; error: string };

/** The sampling a codec sends; an absent field is the provider's default. */
export interface CodecSampling {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
}

/** One model request, as a codec renders it. */
export interface CodecRequest extends CodecSampling {
  role: Role;
  system?: string;
  /** The conversation; the last message is the user's turn the reply answers. */
  messages: ChatMessage[];
}

/** A protocol whose replies are free text (tags, a template): the codec parses the text. */
export interface TextCodec<S, A> {
  readonly kind: "text";
  /** The protocol's name (`smtl-tags`, `agentcpm`, …). */
  readonly name: string;
  request(state: S): CodecRequest;
  decode(reply: string, state: S): Decoded<A>;
}

/**
 * A protocol whose replies are JSON of a schema: structured output parses and validates the
 * text (with the provider's schema mode where it has one), then the codec reads the value.
 */
export interface JsonCodec<S, A, V = unknown> {
  readonly kind: "json";
  readonly name: string;
  request(state: S): CodecRequest & { schema: ZodType<V> };
  /** The validated value as an action, or why the protocol refuses it. */
  decode(value: V, state: S): Decoded<A>;
}

/** A protocol of a strategy: JSON or text. */
export type Codec<S, A> = TextCodec<S, A> | JsonCodec<S, A, unknown>;

/** A decoded action. */
export const decoded = <A>(action: A): Decoded<A> => ({ ok: true, action });
/** A refused reply. */
export const refused = <A = never>(error: string): Decoded<A> => ({ ok: false, error });
