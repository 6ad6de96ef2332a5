package dev.gadget.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
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
 * OpenAI-compatible endpoints), never from the command line, and are never printed.
 */
final class Providers {
  static final String DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434";
  static final String DEFAULT_OPENAI_URL = "https://api.openai.com/v1";
  static final String DEFAULT_OLLAMA_MODEL = "qwen3";
  static final String DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
  static final ProviderConfig SCRIPTED = new ProviderConfig(LlmClients.SCRIPTED,
      "scripted:demo", null, "gadget-demo-script", null);

  static final List<OptionSpec> OPTIONS = List.of(
      OptionSpec.value("llm", "SDK", "ollama, openai (any OpenAI-compatible endpoint) or "
          + "scripted (canned demo replies)"),
      OptionSpec.value("model", "NAME", "the model id (default: qwen3 for ollama, "
          + "gpt-4o-mini for openai)"),
      OptionSpec.value("base-url", "URL", "the LLM server's base URL (alone it means --llm "
          + "openai; default " + DEFAULT_OLLAMA_URL + " or " + DEFAULT_OPENAI_URL + ")"));

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
   * {@code --base-url} or {@code OPENAI_API_KEY} is given; else Ollama when one answers on
   * 127.0.0.1:11434 and has a model; else scripted replies.
   */
  static Choice forDemo(Args args, Console console, String ollamaUrl) {
    if (args.get("llm").isPresent()) {
      return explicit(args.get("llm").get(), args, console);
    }
    if (args.get("base-url").isPresent() || console.env("OPENAI_API_KEY") != null) {
      return explicit(LlmClients.OPENAI, args, console);
    }
    Optional<List<String>> models = ollamaModels(ollamaUrl);
    if (models.isPresent()) {
      Optional<String> model = args.get("model").or(() -> pickModel(models.get()));
      if (model.isPresent()) {
        return new Choice(new ProviderConfig(LlmClients.OLLAMA, ollamaUrl, null, model.get(),
            null), "Ollama at " + ollamaUrl + ", model " + model.get(), false);
      }
      return scripted("Ollama answers at " + ollamaUrl + " but has no model installed "
          + "(try 'ollama pull " + DEFAULT_OLLAMA_MODEL + "', then start the demo again)");
    }
    return scripted("no LLM is configured: nothing answers at " + ollamaUrl
        + ", and neither --base-url nor OPENAI_API_KEY is given");
  }

  static Choice scripted(String why) {
    return new Choice(SCRIPTED, "SCRIPTED replies: " + why + ". The answers are canned by "
        + "Gadget's demo script, not written by a model; the tools they call run for real.", true);
  }

  private static Choice explicit(String sdk, Args args, Console console) {
    switch (sdk) {
      case LlmClients.OLLAMA: {
        String url = args.get("base-url", DEFAULT_OLLAMA_URL);
        String model = args.get("model", DEFAULT_OLLAMA_MODEL);
        return new Choice(new ProviderConfig(sdk, url, console.env("GADGET_LLM_API_KEY"), model,
            null), "Ollama at " + url + ", model " + model, false);
      }
      case LlmClients.OPENAI: {
        String url = args.get("base-url", DEFAULT_OPENAI_URL);
        String model = args.get("model", DEFAULT_OPENAI_MODEL);
        String key = console.env("GADGET_LLM_API_KEY");
        if (key == null) {
          key = console.env("OPENAI_API_KEY");
        }
        return new Choice(new ProviderConfig(sdk, url, key, model, null),
            "OpenAI-compatible endpoint " + url + ", model " + model
                + (key == null ? " (no API key)" : " (API key from the environment)"), false);
      }
      case LlmClients.SCRIPTED:
        return scripted("--llm scripted");
      default:
        throw new UsageException("--llm must be ollama, openai or scripted, not '" + sdk + "'");
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
