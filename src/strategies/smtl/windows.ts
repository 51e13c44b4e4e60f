/**
 * smtl's working windows, sized from the model's context (seed: SMTL §6.1 and its inference
 * code): the conversation is reset once it reaches the searcher model's context window less the
 * room the seed reserves for the reply (2 × (8,192 + 1,024) tokens: 112,640 of 131,072), and a
 * page read shows the reader at most the seed's share of the reader model's window, 60 % from
 * the head of the page and 40 % from its tail. The seed serves a 128K model (131,072 tokens)
 * and shows 120,000 − 4,096 = 115,904 tokens of a page; a smaller model gets both scaled down
 * in proportion, a larger one keeps the seed's 128K. A model whose window the table does not
 * know (local servers) gets the seed's, unless the `contextWindow` option or the configuration's
 * `contextWindows` says otherwise (an `ollama:` model's window is the `num_ctx` it is sent).
 */

import type { RunContext } from "../../kit/run-context.ts";
import type { Role } from "../../llm/model-spec.ts";

/** The seed's context window (its model is served with a maximum length of 131,072 tokens). */
export const SEED_CONTEXT_TOKENS = 131_072;
/** The seed's page window: 120,000 − 4,096 tokens of page text shown to the summariser. */
export const SEED_PAGE_TOKENS = 115_904;
/**
 * Room kept free for the reply before a reset: the seed subtracts its reply reserve (the 8,192
 * output tokens plus 1,024) twice.
 */
export const REPLY_RESERVE_TOKENS = 2 * (8192 + 1024);
/** Share of a cut page taken from its head (the seed keeps 60 % head, 40 % tail). */
export const PAGE_HEAD_SHARE = 0.6;

/** The windows of a run. */
export interface SmtlWindows {
  /** Context window of the searcher's model (known, given, or the seed's). */
  searcherWindow: number;
  /** Context window of the reader's model. */
  readerWindow: number;
  /**
   * Estimated tokens of the conversation that trigger the forced refinement and the reset: the
   * window less {@link REPLY_RESERVE_TOKENS} (at least half the window) unless given.
   */
  contextTokens: number;
  /** Estimated tokens of page text a page read shows the reader. */
  pageTokens: number;
  headShare: number;
}

/** The windows for given model windows and options (see the module comment). */
export function windowsFor(
  searcherWindow: number,
  readerWindow: number,
  options: { contextTokens?: number | undefined } = {},
): SmtlWindows {
  const reader = Math.min(readerWindow, SEED_CONTEXT_TOKENS);
  const searcher = Math.min(searcherWindow, SEED_CONTEXT_TOKENS);
  return {
    searcherWindow,
    readerWindow,
    // A small window keeps at least half of itself for the conversation.
    contextTokens:
      options.contextTokens ?? Math.max(Math.floor(searcher / 2), searcher - REPLY_RESERVE_TOKENS),
    pageTokens: Math.floor((reader * SEED_PAGE_TOKENS) / SEED_CONTEXT_TOKENS),
    headShare: PAGE_HEAD_SHARE,
  };
}

/** The context window of the model a role resolves to; null when unknown or unresolved. */
function windowOf(ctx: Pick<RunContext, "llm">, role: Role): number | null {
  try {
    return ctx.llm.resolve(role).contextWindow ?? null;
  } catch {
    return null;
  }
}

/** The windows of a run: `contextWindow` (tokens) over the models' known windows over the seed's. */
export function smtlWindows(
  ctx: Pick<RunContext, "llm">,
  options: { contextWindow?: number | undefined; contextTokens?: number | undefined } = {},
): SmtlWindows {
  const searcher = options.contextWindow ?? windowOf(ctx, "searcher") ?? SEED_CONTEXT_TOKENS;
  const reader = options.contextWindow ?? windowOf(ctx, "reader") ?? SEED_CONTEXT_TOKENS;
  return windowsFor(searcher, reader, { contextTokens: options.contextTokens });
}
