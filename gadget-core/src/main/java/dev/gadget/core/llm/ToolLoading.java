package dev.gadget.core.llm;

/**
 * How a turn that defers tools gives the model the ones it loads (by a search, or by calling one
 * not loaded yet), so that as little of the provider's cached prompt as possible is processed
 * again. Each {@link LlmClient} says its provider's ({@link LlmClient#toolLoading()}); an agent
 * loop may choose another. docs/TOOL-SEARCH.md, "The prompt cache", measures what each costs.
 */
public enum ToolLoading {
  /**
   * The loaded definitions are appended to the request's tools. The prompt up to the old tools
   * stays cached; what follows them (with most providers, every message so far) is processed
   * again, once per load.
   */
  APPEND,
  /**
   * Anthropic's: every deferred tool goes in every request marked {@code defer_loading}, and a
   * search's result refers to the tools it loads ({@link LlmRequest#toolReferences()}), whose
   * definitions the API puts there, in the conversation. The request's tools never change:
   * nothing is processed again.
   */
  REFERENCE,
  /**
   * The search's result carries the loaded tools' definitions, and the model calls them through
   * one more tool offered from the start, {@code call_tool} (a name and arguments). The
   * request's tools never change: nothing is processed again; the calls go through a tool whose
   * arguments the provider cannot check against the called tool's schema.
   */
  IN_RESULT
}
