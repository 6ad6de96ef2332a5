package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.spi.ChatStore;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the runtime tests of a chat share: a fixture with a page watching a session of a drone's,
 * scripted replies, and the blocks of a turn as the store keeps them and as a page assembles them.
 */
abstract class ChatRuntimeTestBase extends RuntimeTestBase {
  RuntimeFixture fixture() throws Exception {
    fx = new RuntimeFixture(tmp);
    return fx;
  }

  static ScriptedLlmClient.Reply readReadme() {
    return ScriptedLlmClient.reply().thinking("I should look at the README first.")
        .text("Let me read it.").toolCall("read_file", "{\"path\":\"README.md\"}").build();
  }

  static ScriptedLlmClient.Reply answer(String text) {
    return ScriptedLlmClient.reply().thinking("Now I know.").text(text).build();
  }

  /** A session of {@code p}'s on the sample project; returns its id. */
  String session(Page page) throws Exception {
    JsonNode project = fx.sampleProject(page);
    return page.request(Protocol.CREATE_SESSION,
        Map.of("projectId", project.get("_id").asText(), "name", "Chat")).get("session")
        .get("_id").asText();
  }

  record Chat(GadgetDrone drone, Page page, String session) {}

  /** A drone of {@code who}'s, a page of theirs watching a new session, the drone registered. */
  Chat chat(Person who, Path workspace, dev.gadget.core.llm.LlmClient llm)
      throws Exception {
    GadgetDrone drone = fx.drone(who, workspace, llm);
    Page page = fx.page(who.pageToken()).connected();
    String session = session(page);
    page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    await("drone registered", () -> !fx.store.listDrones(who.user().id()).isEmpty());
    return new Chat(drone, page, session);
  }

  static String submit(Page page, String sessionId, String prompt) throws Exception {
    return page.submit(sessionId, prompt);
  }

  /** Blocks as a page assembles them from a snapshot and the live events after it. */
  static List<String> assemble(JsonNode snapshot, String turnId, List<Page.Event> events) {
    List<String> blocks = new ArrayList<>();
    long lastSeq = -1;
    String open = null;
    StringBuilder text = new StringBuilder();
    if (snapshot != null) {
      int openSeq = Integer.MAX_VALUE;
      for (JsonNode l : snapshot.get("live")) {
        JsonNode ob = l.get("openBlock");
        if (l.get("turnId").asText().equals(turnId) && ob != null && !ob.isNull()) {
          openSeq = ob.get("seq").asInt();
        }
      }
      for (JsonNode t : snapshot.get("turns")) {
        if (t.get("_id").asText().equals(turnId)) {
          for (JsonNode b : t.get("blocks")) {
            // as the page does: a stored block at the open block's seq is its checkpoint
            if (b.get("seq").asInt() < openSeq) {
              blocks.add(describe(b));
            }
          }
        }
      }
      for (JsonNode l : snapshot.get("live")) {
        if (l.get("turnId").asText().equals(turnId)) {
          lastSeq = l.get("lastSeq").asLong();
          JsonNode ob = l.get("openBlock");
          if (ob != null && !ob.isNull()) {
            open = ob.get("mode").asText();
            text.append(ob.get("content").asText());
          }
        }
      }
    }
    for (Page.Event e : events) {
      if (e.name().equals(Protocol.BLOCKS_SUPERSEDED)) {
        // the open block closes; the listed blocks (numbered from 0 here) are superseded
        if (open != null) {
          blocks.add(open + ":" + text);
          open = null;
          text.setLength(0);
        }
        for (JsonNode n : e.payload().get("blocks")) {
          blocks.set(n.asInt(), "superseded " + blocks.get(n.asInt()));
        }
        continue;
      }
      long seq = e.payload().path("seq").asLong(-1);
      if (e.name().equals(Protocol.TURN_STARTED) || seq <= lastSeq) {
        continue;
      }
      if (e.name().equals(Protocol.TOOL_STARTED) || e.name().equals(Protocol.TOOL_OUTPUT)) {
        continue;
      }
      String mode = e.name().equals(Protocol.THINKING) ? "thinking"
          : e.name().equals(Protocol.RESPONSE) ? "responding" : null;
      if (mode != null && mode.equals(open)) {
        text.append(e.payload().get("data").asText());
        continue;
      }
      if (open != null) {
        blocks.add(open + ":" + text);
        open = null;
        text.setLength(0);
      }
      if (mode != null) {
        open = mode;
        text.append(e.payload().get("data").asText());
      } else if (e.name().equals(Protocol.TOOL_CALL)) {
        blocks.add("tool:" + e.payload().get("call").get("name").asText());
      } else if (e.name().equals(Protocol.TURN_CHANGES)) {
        blocks.add(describe(GadgetJson.mapper().createObjectNode().put("mode", "diff")
            .set("content", e.payload().get("diff"))));
      }
    }
    if (open != null) {
      blocks.add(open + ":" + text);
    }
    return blocks;
  }

  static String describe(JsonNode b) {
    String mode = b.get("mode").asText();
    if (mode.equals("diff")) {
      StringBuilder files = new StringBuilder("diff:");
      for (JsonNode f : b.get("content").get("files")) {
        files.append(f.get("change").asText()).append(' ').append(f.get("path").asText());
      }
      return files.toString();
    }
    return mode.equals("tool") ? "tool:" + b.get("content").get("name").asText()
        : (b.path("superseded").asBoolean() ? "superseded " : "") + mode + ":"
            + b.get("content").asText();
  }

  static List<String> describe(ChatTurn turn) {
    List<String> out = new ArrayList<>();
    for (TurnBlock b : turn.blocks()) {
      out.add(describe(GadgetJson.mapper().valueToTree(b)));
    }
    return out;
  }

  /** Counts block writes (appendBlock, saveBlock) and finalizeTurn calls on a real store. */
  static ChatStore counting(ChatStore real, AtomicInteger appends, AtomicInteger finals) {
    return (ChatStore) Proxy.newProxyInstance(ChatStore.class.getClassLoader(),
        new Class<?>[] {ChatStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("appendBlock") || method.getName().equals("saveBlock")) {
            appends.incrementAndGet();
          } else if (method.getName().equals("finalizeTurn")) {
            finals.incrementAndGet();
          }
          try {
            return method.invoke(real, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
