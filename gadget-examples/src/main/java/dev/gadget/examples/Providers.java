package dev.gadget.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.ModelParams;
import dev.gadget.core.model.ProviderConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Which LLM the work orders name, from the command line and the environment. API keys come from
 * the environment only ({@code GADGET_LLM_API_KEY}, or {@code OPENAI_API_KEY} for
 * OpenAI-compatible endpoints and {@code ANTHROPIC_API_KEY} for Anthropic), never from the
 * command line, and are never printed.
 */
final class Providers {
  static final String DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434";
  static final String DEFAULT_OPENAI_URL = "https://api.openai.com/v1";
  static final String DEFAULT_OLLAMA_MODEL = "qwen3";
  static final String DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
  static final String DEFAULT_LLAMACPP_URL = "http://127.0.0.1:8080/v1";
  static final String DEFAULT_ANTHROPIC_URL = "https://api.anthropic.com";
  static final String DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";
  static final ProviderConfig SCRIPTED = new ProviderConfig(LlmClients.SCRIPTED,
      "scripted:demo", null, "gadget-demo-script", null);

  /** What {@code --context-window} means, for the server, the demo and the drone. */
  static final String CONTEXT_WINDOW_HELP = "the model's context window in tokens, which the "
      + "context budget and compaction fit (default: what the provider says, else the published "
      + "window of a well-known model; Ollama is also asked for it as num_ctx)";

  static final List<OptionSpec> OPTIONS = List.of(
      OptionSpec.value("llm", "SDK", "ollama, openai (any OpenAI-compatible endpoint; "
          + "api.openai.com's reasoning models use the Responses API), openai-responses "
          + "(OpenAI's Responses API), llamacpp (llama.cpp's server), anthropic or scripted "
          + "(canned demo replies)"),
      OptionSpec.value("model", "NAME", "the model id (default: " + DEFAULT_OLLAMA_MODEL
          + " for ollama, " + DEFAULT_OPENAI_MODEL + " for openai, " + DEFAULT_ANTHROPIC_MODEL
          + " for anthropic)"),
      OptionSpec.value("base-url", "URL", "the LLM server's base URL (alone it means --llm "
          + "openai; default " + DEFAULT_OLLAMA_URL + ", " + DEFAULT_OPENAI_URL + " or "
          + DEFAULT_ANTHROPIC_URL + ")"),
      OptionSpec.value("temperature", "T", "the model's sampling temperature, 0 to 2 "
          + "(default: the model's own)"),
      OptionSpec.value("top-p", "P", "nucleus sampling: the probability mass kept, above 0 "
          + "and at most 1 (default: the model's own)"),
      OptionSpec.value("top-k", "K", "top-k sampling, 1 or more (Ollama and Anthropic; "
          + "OpenAI-compatible servers ignore it)"),
      OptionSpec.value("context-window", "TOKENS", CONTEXT_WINDOW_HELP));


  private Providers() {}

  /**
   * A provider and a sentence about it for people.
   *
   * @param config what goes into work orders (the key included, redacted by its toString)
   * @param description for the console, never the key
   * @param scripted whether the replies are canned
   */
  record Choice(ProviderConfig config, String description, boolean scripted) {
    Choice {
      Objects.requireNonNull(config, "config");
      Objects.requireNonNull(description, "description");
    }
  }

  /** The server's provider: {@code --llm} (default ollama, or openai with {@code --base-url}). */
  static Choice forServer(Args args, Console console) {
    String sdk = args.get("llm").orElse(args.get("base-url").isPresent()
        ? LlmClients.OPENAI : LlmClients.OLLAMA);
    return explicit(sdk, args, console);
  }

  /**
   * The demo's provider: {@code --llm} when given; else an OpenAI-compatible endpoint when
   * {@code --base-url} or {@code OPENAI_API_KEY} is given; else Anthropic when
   * {@code ANTHROPIC_API_KEY} is; else Ollama when one answers on 127.0.0.1:11434 and has a
   * model; else scripted replies.
   */
  static Choice forDemo(Args args, Console console, String ollamaUrl) {
    if (args.get("llm").isPresent()) {
      return explicit(args.get("llm").get(), args, console);
    }
    if (args.get("base-url").isPresent() || console.env("OPENAI_API_KEY") != null) {
      return explicit(LlmClients.OPENAI, args, console);
    }
    if (console.env("ANTHROPIC_API_KEY") != null) {
      return explicit(LlmClients.ANTHROPIC, args, console);
    }
    Optional<List<String>> models = ollamaModels(ollamaUrl);
    if (models.isPresent()) {
      Optional<String> model = args.get("model").or(() -> pickModel(models.get()));
      if (model.isPresent()) {
        return new Choice(new ProviderConfig(LlmClients.OLLAMA, ollamaUrl, null, model.get(),
            params(args)), "Ollama at " + ollamaUrl + ", model " + model.get(), false);
      }
      return scripted("Ollama answers at " + ollamaUrl + " but has no model installed "
          + "(try 'ollama pull " + DEFAULT_OLLAMA_MODEL + "', then start the demo again)");
    }
    return scripted("no LLM is configured: nothing answers at " + ollamaUrl
        + ", and none of --base-url, OPENAI_API_KEY and ANTHROPIC_API_KEY is given");
  }

  /**
   * The sampling {@code --temperature}, {@code --top-p} and {@code --top-k} and the
   * {@code --context-window} set, or null when none is (each model's own defaults).
   */
  static ModelParams params(Args args) {
    Double temperature = number(args, "temperature", 0, 2, true);
    Double topP = number(args, "top-p", 0, 1, false);
    Double topK = number(args, "top-k", 1, Integer.MAX_VALUE, true);
    Integer window = contextWindow(args);
    if (temperature == null && topP == null && topK == null && window == null) {
      return null;
    }
    if (topK != null && topK != Math.rint(topK)) {
      throw new UsageException("--top-k takes a whole number, 1 or more; not '"
          + args.get("top-k").get() + "'");
    }
    return new ModelParams(temperature, topP, topK == null ? null : topK.intValue(), null,
        window);
  }

  /** {@code --context-window}: a whole number of tokens, at least 1,024; null when not given. */
  static Integer contextWindow(Args args) {
    Double tokens = number(args, "context-window", 1024, Integer.MAX_VALUE, true);
    if (tokens != null && tokens != Math.rint(tokens)) {
      throw new UsageException("--context-window takes a whole number of tokens, 1024 or more; "
          + "not '" + args.get("context-window").get() + "'");
    }
    return tokens == null ? null : tokens.intValue();
  }

  private static Double number(Args args, String option, double min, double max,
      boolean minIncluded) {
    String v = args.get(option).orElse(null);
    if (v == null) {
      return null;
    }
    try {
      double d = Double.parseDouble(v.strip());
      if ((minIncluded ? d >= min : d > min) && d <= max && !Double.isNaN(d)) {
        return d;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new UsageException("--" + option + " takes a number " + (minIncluded ? "from " + fmt(min)
        : "above " + fmt(min)) + (max == Integer.MAX_VALUE ? " up" : " to " + fmt(max))
        + "; not '" + v + "'");
  }

  private static String fmt(double d) {
    return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
  }

  static Choice scripted(String why) {
    return new Choice(SCRIPTED, "SCRIPTED replies: " + why + ". The answers are canned by "
        + "Gadget's scripted mode, not written by a model; the tools they call run for real.",
        true);
  }

  /**
   * The API key for {@code sdk} in an environment: {@code GADGET_LLM_API_KEY}, else the
   * provider's own variable ({@code OPENAI_API_KEY} for openai, {@code ANTHROPIC_API_KEY} for
   * anthropic; Ollama has none); {@code null} when neither is set.
   */
  static String apiKey(String sdk, java.util.function.Function<String, String> env) {
    String key = env.apply("GADGET_LLM_API_KEY");
    if (key != null) {
      return key;
    }
    switch (sdk) {
      case LlmClients.OPENAI:
      case LlmClients.OPENAI_RESPONSES:
      case LlmClients.LLAMACPP:
        return env.apply("OPENAI_API_KEY");
      case LlmClients.ANTHROPIC:
        return env.apply("ANTHROPIC_API_KEY");
      default:
        return null;
    }
  }

  private static Choice explicit(String sdk, Args args, Console console) {
    switch (sdk) {
      case LlmClients.OLLAMA: {
        String url = args.get("base-url", DEFAULT_OLLAMA_URL);
        String model = args.get("model", DEFAULT_OLLAMA_MODEL);
        return new Choice(new ProviderConfig(sdk, url, apiKey(sdk, console::env), model,
            params(args)), "Ollama at " + url + ", model " + model, false);
      }
      case LlmClients.LLAMACPP: {
        String url = args.get("base-url", DEFAULT_LLAMACPP_URL);
        String model = args.get("model", "default");
        return new Choice(new ProviderConfig(sdk, url, apiKey(sdk, console::env), model,
            params(args)), "llama.cpp at " + url + ", model " + model, false);
      }
      case LlmClients.OPENAI:
      case LlmClients.OPENAI_RESPONSES: {
        String url = args.get("base-url", DEFAULT_OPENAI_URL);
        String model = args.get("model", DEFAULT_OPENAI_MODEL);
        String key = apiKey(sdk, console::env);
        ProviderConfig config = new ProviderConfig(sdk, url, key, model, params(args));
        return new Choice(config, (LlmClients.sdkFor(config).equals(LlmClients.OPENAI_RESPONSES)
                ? "OpenAI Responses API at " : "OpenAI-compatible endpoint ") + url
            + ", model " + model
                + (key == null ? " (no API key)" : " (API key from the environment)"), false);
      }
      case LlmClients.ANTHROPIC: {
        String url = args.get("base-url", DEFAULT_ANTHROPIC_URL);
        String model = args.get("model", DEFAULT_ANTHROPIC_MODEL);
        String key = apiKey(sdk, console::env);
        return new Choice(new ProviderConfig(sdk, url, key, model, params(args)),
            "Anthropic at " + url + ", model " + model + (key == null
                ? " (no API key: set ANTHROPIC_API_KEY or GADGET_LLM_API_KEY here or on each "
                    + "drone)" : " (API key from the environment)"), false);
      }
      case LlmClients.SCRIPTED:
        return scripted("--llm scripted");
      default:
        throw new UsageException("--llm must be ollama, openai, openai-responses, llamacpp, "
            + "anthropic or scripted, not '"
            + sdk + "'");
    }
  }

  /** The models an Ollama server lists, or empty when nothing answers there within ~2 s. */
  static Optional<List<String>> ollamaModels(String baseUrl) {
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(
              URI.create(baseUrl.replaceAll("/+$", "") + "/api/tags"))
          .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        return Optional.empty();
      }
      JsonNode body = GadgetJson.mapper().readTree(r.body());
      List<String> names = new ArrayList<>();
      for (JsonNode m : body.path("models")) {
        String name = m.path("name").asText(m.path("model").asText(""));
        if (!name.isEmpty()) {
          names.add(name);
        }
      }
      return Optional.of(names);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  /** A chat model from Ollama's list: the first that is not an embedding model. */
  static Optional<String> pickModel(List<String> names) {
    return names.stream().filter(n -> !n.toLowerCase().contains("embed")).findFirst();
  }
}
