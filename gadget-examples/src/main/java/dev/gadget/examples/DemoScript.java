package dev.gadget.examples;

import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The demo's scripted "model", for when no LLM is configured: a believable multi-step reply that
 * uses real tools. It lists the project's top directory, reads its README (or the first file),
 * then answers in Markdown with what the tools returned, saying plainly that the reply is
 * scripted. Replies stream word by word.
 */
final class DemoScript {
  static final Duration TOKEN_DELAY = Duration.ofMillis(30);

  private DemoScript() {}

  /** A new scripted client playing this script. */
  static ScriptedLlmClient client() {
    return client(TOKEN_DELAY);
  }

  static ScriptedLlmClient client(Duration tokenDelay) {
    return ScriptedLlmClient.builder().tokenDelay(tokenDelay).script(DemoScript::reply).build();
  }

  /** The next reply for a request, from the tool results since the user's last message. */
  static ScriptedLlmClient.Reply reply(LlmRequest request) {
    List<LlmMessage> messages = request.messages();
    int lastUser = -1;
    for (int i = 0; i < messages.size(); i++) {
      if (messages.get(i).role() == Role.USER) {
        lastUser = i;
      }
    }
    String prompt = lastUser < 0 ? "" : messages.get(lastUser).content();
    Map<String, String> results = new LinkedHashMap<>();
    for (int i = lastUser + 1; i < messages.size(); i++) {
      LlmMessage m = messages.get(i);
      if (m.role() == Role.TOOL) {
        results.put(m.toolName(), m.content());
      }
    }
    if (!results.containsKey("list_dir")) {
      return ScriptedLlmClient.reply()
          .thinking("The user asks: \u201c" + oneLine(prompt, 80) + "\u201d. I have not seen "
              + "this project yet, so I will look before I answer: first its top-level "
              + "directory, then its README.")
          .text("Let me look at the project first.")
          .toolCall("list_dir", "{\"path\":\".\"}")
          .build();
    }
    List<String> entries = entries(results.get("list_dir"));
    String toRead = pickFile(entries);
    if (toRead != null && !results.containsKey("read_file")) {
      return ScriptedLlmClient.reply()
          .thinking("The top directory has " + entries.size() + " entries: "
              + String.join(", ", entries) + ". " + toRead + " should say what the project "
              + "is for, so I will read it.")
          .toolCall("read_file", "{\"path\":\"" + toRead.replace("\"", "") + "\"}")
          .build();
    }
    return ScriptedLlmClient.reply()
        .thinking("I have what I need for a short overview.")
        .text(answer(prompt, entries, toRead, results.get("read_file")))
        .build();
  }

  private static String answer(String prompt, List<String> entries, String file,
      String content) {
    StringBuilder sb = new StringBuilder();
    sb.append("> **Scripted reply.** No model is connected, so this answer is canned by "
        + "Gadget's scripted mode. The tools above really ran, in the drone's clone of the "
        + "project.\n\n");
    sb.append("You asked: *").append(oneLine(prompt, 200)).append("*\n\n");
    sb.append("### What is in the project\n\n");
    sb.append("| entry | kind |\n| --- | --- |\n");
    for (String e : entries) {
      boolean dir = e.endsWith("/");
      sb.append("| `").append(e).append("` | ").append(dir ? "directory" : "file")
          .append(" |\n");
    }
    sb.append('\n');
    if (file != null && content != null) {
      sb.append("### ").append(file).append("\n\nIt starts with:\n\n");
      int n = 0;
      for (String line : content.split("\n")) {
        if (line.startsWith("```") || line.startsWith("~~~")) {
          break;
        }
        if (line.isBlank()) {
          continue;
        }
        sb.append("> ").append(line).append("  \n");
        if (++n == 4) {
          break;
        }
      }
      sb.append('\n');
    }
    sb.append("### Try a real model\n\n");
    sb.append("- Start Ollama with a chat model (`ollama pull qwen3`), then restart Gadget: "
        + "`demo` finds Ollama on `127.0.0.1:11434` by itself, `server` takes "
        + "`--llm ollama --model qwen3`.\n");
    sb.append("- Or use any OpenAI-compatible endpoint (`server` or `demo`):\n\n");
    sb.append("```bash\nOPENAI_API_KEY=... java -jar gadget.jar server "
        + "--base-url https://api.example.com/v1 --model my-model\n```\n");
    sb.append("- Or add your own provider in the page (Providers, in the sidebar) and pick its "
        + "model above the prompt box.\n");
    return sb.toString();
  }

  static List<String> entries(String listing) {
    List<String> out = new ArrayList<>();
    if (listing == null) {
      return out;
    }
    for (String line : listing.split("\n")) {
      String t = line.strip();
      if (!t.isEmpty() && !t.startsWith("[") && !t.startsWith("(") && !t.equals(".git/")) {
        out.add(t);
      }
    }
    return out;
  }

  private static String pickFile(List<String> entries) {
    for (String e : entries) {
      if (e.toLowerCase(Locale.ROOT).startsWith("readme")) {
        return e;
      }
    }
    for (String e : entries) {
      if (!e.endsWith("/") && !e.endsWith("@") && !e.startsWith(".")) {
        return e;
      }
    }
    return null;
  }

  private static String oneLine(String s, int max) {
    String t = s.replaceAll("\\s+", " ").strip();
    return t.length() <= max ? t : t.substring(0, max - 1) + "\u2026";
  }
}
