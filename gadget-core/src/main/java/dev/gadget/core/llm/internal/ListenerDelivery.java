package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmListener;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.ThinkingBlock;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers one call's events to its {@link LlmListener}: the reply pieces the parser recognises
 * (dropped once {@code cancel()} was called), then the terminal event. A listener that throws
 * never reaches the library: it is logged (at WARN once per engine, then at DEBUG) and the call
 * goes on. Used on the call's runner only.
 */
final class ListenerDelivery implements StreamEvents {
  private static final Logger log = LoggerFactory.getLogger(HttpStreamEngine.class);

  private final LlmListener listener;
  private final AtomicBoolean cancelRequested;
  private final AtomicBoolean warnedListener;
  private boolean listenerFailed;

  /**
   * A delivery.
   *
   * @param listener the call's listener
   * @param cancelRequested set once the call's {@code cancel()} was called
   * @param warnedListener the engine's flag: whether a throwing listener was logged at WARN
   */
  ListenerDelivery(LlmListener listener, AtomicBoolean cancelRequested,
      AtomicBoolean warnedListener) {
    this.listener = listener;
    this.cancelRequested = cancelRequested;
    this.warnedListener = warnedListener;
  }

  @Override
  public void thinking(String text) {
    if (!cancelRequested.get()) {
      try {
        listener.onThinking(text);
      } catch (RuntimeException e) {
        listenerThrew("onThinking", e);
      }
    }
  }

  @Override
  public void text(String text) {
    if (!cancelRequested.get()) {
      try {
        listener.onText(text);
      } catch (RuntimeException e) {
        listenerThrew("onText", e);
      }
    }
  }

  @Override
  public void toolCall(LlmToolCall call) {
    if (!cancelRequested.get()) {
      try {
        listener.onToolCall(call);
      } catch (RuntimeException e) {
        listenerThrew("onToolCall", e);
      }
    }
  }

  @Override
  public void signedThinking(ThinkingBlock block) {
    if (!cancelRequested.get()) {
      try {
        listener.onSignedThinking(block);
      } catch (RuntimeException e) {
        listenerThrew("onSignedThinking", e);
      }
    }
  }

  /** The terminal event of a call that succeeded. */
  void complete(LlmCompletion completion) {
    try {
      listener.onComplete(completion);
    } catch (RuntimeException e) {
      listenerThrew("onComplete", e);
    }
  }

  /** The terminal event of a call that failed or was cancelled. */
  void error(LlmException error, LlmCompletion partial) {
    try {
      listener.onError(error, partial);
    } catch (RuntimeException e) {
      listenerThrew("onError", e);
    }
  }

  private void listenerThrew(String method, RuntimeException e) {
    if (!listenerFailed && warnedListener.compareAndSet(false, true)) {
      log.warn("LlmListener.{} threw; the call goes on (further failures are logged at DEBUG)",
          method, e);
    } else {
      log.debug("LlmListener.{} threw; the call goes on", method, e);
    }
    listenerFailed = true;
  }
}
