package dev.gadget.core.drone.internal;

import dev.gadget.core.agent.catalog.ModelToolExamples;
import dev.gadget.core.agent.catalog.ToolExamples;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.model.ProviderConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The drone's tool examples, written by each turn's own model ({@link ModelToolExamples}): one
 * source per provider and model (the {@value #MAX_MODELS} last used kept), each in a file of its
 * own in the drone's directory for them, named by a SHA-256 of the provider's address and model
 * (the API key is in neither the name nor the file). Off without a directory. Thread-safe.
 */
public final class DroneToolExamples implements AutoCloseable {
  /** How many providers' and models' sources are kept open. */
  static final int MAX_MODELS = 8;

  private final Path dir;
  private final Function<ProviderConfig, LlmClient> clients;
  private final Map<String, ModelToolExamples> byModel = new LinkedHashMap<>(16, 0.75f, true);

  /** Examples kept in {@code dir} (none when it is {@code null}), asked of {@code clients}. */
  public DroneToolExamples(Path dir, Function<ProviderConfig, LlmClient> clients) {
    this.dir = dir;
    this.clients = clients;
  }

  /** The examples the turns of {@code provider} search with. */
  public synchronized ToolExamples forProvider(ProviderConfig provider) {
    if (dir == null) {
      return ToolExamples.NONE;
    }
    String where = provider.sdk() + "\n" + provider.baseUrl() + "\n" + provider.modelId();
    // a changed key gets a client of its own; the file stays the model's
    String key = where + "\n" + sha256(provider.apiKey() == null ? "" : provider.apiKey());
    ModelToolExamples examples = byModel.get(key);
    if (examples == null) {
      examples = new ModelToolExamples(clients.apply(provider), provider.modelId(),
          dir.resolve("tool-examples-" + sha256(where).substring(0, 16) + ".jsonl"));
      byModel.put(key, examples);
      if (byModel.size() > MAX_MODELS) {
        var eldest = byModel.entrySet().iterator().next();
        eldest.getValue().close();
        byModel.remove(eldest.getKey());
      }
    }
    return examples;
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  @Override
  public synchronized void close() {
    byModel.values().forEach(ModelToolExamples::close);
    byModel.clear();
  }
}
