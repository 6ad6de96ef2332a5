package dev.gadget.core.llm.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Which of a llama.cpp server's slots each conversation uses, so that a chat's requests go to the
 * slot whose KV cache already holds its prefix ({@code id_slot}). A new conversation takes a slot
 * no conversation holds, else the one used least recently; with no more chats than slots, no chat
 * evicts another's cache. Also reads the server's {@code GET /props}: {@code total_slots} and the
 * context of a slot ({@code default_generation_settings.n_ctx}). Thread-safe.
 */
public final class LlamaCppSlots {
  /** What {@code /props} said: the slot count and a slot's context (0: not said). */
  public record Props(int totalSlots, int contextWindow) {}

  private int slots;
  /** Conversation to slot, least recently used first. */
  private final LinkedHashMap<String, Integer> held = new LinkedHashMap<>(16, 0.75f, true);

  /** With {@code slots} slots; 0 when not known yet. */
  public LlamaCppSlots(int slots) {
    this.slots = Math.max(0, slots);
  }

  /** How many slots are known (0: none yet). */
  public synchronized int slots() {
    return slots;
  }

  /** Learns the slot count (once; a count already known stays). */
  public synchronized void learn(int totalSlots) {
    if (slots == 0 && totalSlots > 0) {
      slots = totalSlots;
    }
  }

  /** The slot of {@code key}'s conversation, or -1 while the slot count is unknown. */
  public synchronized int slotFor(String key) {
    if (slots == 0) {
      return -1;
    }
    Integer known = held.get(key); // marks it used most recently
    if (known != null) {
      return known;
    }
    boolean[] taken = new boolean[slots];
    held.values().forEach(s -> taken[s] = true);
    for (int s = 0; s < slots; s++) {
      if (!taken[s]) {
        held.put(key, s);
        return s;
      }
    }
    Map.Entry<String, Integer> eldest = held.entrySet().iterator().next();
    int slot = eldest.getValue();
    held.remove(eldest.getKey());
    held.put(key, slot);
    return slot;
  }

  /** The props of a {@code /props} reply. Pure. */
  public static Props props(JsonNode json) {
    int total = json.path("total_slots").asInt(0);
    int ctx = json.path("default_generation_settings").path("n_ctx").asInt(0);
    if (ctx <= 0) {
      ctx = json.path("n_ctx").asInt(0);
    }
    return new Props(Math.max(0, total), Math.max(0, ctx));
  }

  /**
   * Asks the llama.cpp server whose OpenAI-compatible base URL is {@code baseUrl} ({@code /v1}
   * or not) for its {@code /props}; {@code null} (logged at DEBUG) when it cannot say.
   */
  public static Props fetch(HttpClient http, URI baseUrl, Map<String, String> headers,
      Duration timeout) {
    String base = baseUrl.toString().replaceAll("/+$", "");
    if (base.endsWith("/v1")) {
      base = base.substring(0, base.length() - 3);
    }
    JsonNode props = ModelLists.getJson(http, URI.create(base + "/props"), headers, timeout);
    return props == null ? null : props(props);
  }

  /** A positive window as an {@link OptionalInt}. */
  public static OptionalInt window(Props p) {
    return p == null || p.contextWindow() <= 0 ? OptionalInt.empty()
        : OptionalInt.of(p.contextWindow());
  }
}
