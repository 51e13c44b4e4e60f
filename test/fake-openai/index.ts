/**
 * Public surface of the fake OpenAI-compatible server test kit.
 */

export { BYTE_SPECIALS, BYTE_TOKENIZER, byteDecode, byteEncode, chatMl } from "./byte-tokenizer.ts";
export { countPromptTokens, countTextTokens } from "./chat-completions.ts";
export { fakeEmbedding } from "./embedding.ts";
export { startFakeOpenAI } from "./server.ts";
export {
  type FakeTokenizer,
  type FakeTokens,
  fakeLogprob,
  type WireMessage,
  withTokenIds,
} from "./token-ids.ts";
export type {
  ErrorReply,
  FakeOpenAI,
  FakeOpenAIOptions,
  MalformedReply,
  RawReply,
  RecordedRequest,
  Reply,
  ReplyBase,
  ReplyHandler,
  ReplyUsage,
  ScriptedToolCall,
  TextReply,
  ToolCallsReply,
  TruncatedStreamReply,
} from "./types.ts";
